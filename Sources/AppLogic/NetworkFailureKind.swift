/// What a Network.framework connection failure was, as the shell reads it from `NWError` (POSIX, DNS or TLS
/// domain) and the path status. Kept symbolic because POSIX numbers differ between Darwin and Linux.
public enum NetworkFailureKind: String, Sendable, Hashable, CaseIterable {
    /// The path is unsatisfied: no interface can reach anything.
    case noPath
    /// A DNS error.
    case dns
    /// A TLS error.
    case tls
    /// `ECONNREFUSED`.
    case refused
    /// `ETIMEDOUT`, or our own connect timer fired.
    case timedOut
    /// `ENETDOWN`, `ENETUNREACH`, `EHOSTUNREACH`.
    case unreachable
    /// `ECONNRESET`, `EPIPE`, the peer closed, or anything else.
    case other

    /// The broadcast failure, depending on whether the stream had been live.
    /// - Parameter wasLive: whether the ingest had accepted the publish before the failure.
    public func failure(wasLive: Bool) -> BroadcastFailure {
        switch self {
        case .noPath: return .networkUnavailable
        case .dns: return .hostNotFound
        case .tls: return .tlsFailure
        case .refused: return .connectionRefused
        case .timedOut: return wasLive ? .connectionLost : .timeout
        case .unreachable: return wasLive ? .connectionLost : .networkUnavailable
        case .other: return .connectionLost
        }
    }
}
