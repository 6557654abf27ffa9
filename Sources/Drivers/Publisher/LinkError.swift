#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``ByteStream`` could not open or went down, in the symbolic terms both platforms can name: Linux's
/// socket errors and Network.framework's `NWError` (POSIX, DNS or TLS domain, and the path status) map onto it.
public struct LinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// No interface can reach anything (airplane mode, no Wi-Fi or cellular: an unsatisfied path).
        case noPath
        /// The host name does not resolve.
        case dns
        /// TLS failed: certificate, host name or protocol.
        case tls
        /// Nothing listens at the host and port (`ECONNREFUSED`).
        case refused
        /// Connecting or the peer took too long (`ETIMEDOUT`, or our own timer).
        case timedOut
        /// The network or host cannot be reached (`ENETDOWN`, `ENETUNREACH`, `EHOSTUNREACH`).
        case unreachable
        /// The peer closed or reset the stream (`ECONNRESET`, `EPIPE`), or it was closed, or anything else.
        case closed
        /// More bytes were queued than the stream's buffer allows.
        case bufferFull
    }

    /// The kind of failure.
    public let kind: Kind
    /// What happened, to which host, and what to do; never contains a stream key.
    public let description: String

    /// Creates an error.
    /// - Parameters:
    ///   - kind: the kind.
    ///   - description: a human message naming the peer.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The kind of a POSIX error, as a socket call or Network.framework's `NWError.posix` reports it.
    /// - Parameter code: the error code.
    /// - Returns: `.refused`, `.timedOut`, `.unreachable` for those errors, `.closed` for anything else.
    public static func kind(posix code: POSIXErrorCode) -> Kind {
        switch code {
        case .ECONNREFUSED: .refused
        case .ETIMEDOUT: .timedOut
        case .ENETDOWN, .ENETUNREACH, .EHOSTUNREACH, .EHOSTDOWN: .unreachable
        default: .closed
        }
    }
}
