/// Where a broadcast (or one output) is in its life.
public enum BroadcastState: Sendable, Hashable, CustomStringConvertible {
    /// Created, not started.
    case idle
    /// Opening the first connection.
    case connecting
    /// Media is flowing.
    case live
    /// The connection dropped; waiting or trying again (`attempt` counts from 1).
    case reconnecting(attempt: Int)
    /// Finished as asked.
    case ended(BroadcastEndReason)
    /// Gave up.
    case failed(BroadcastError)

    /// Whether the broadcast is over (ended or failed).
    public var isFinal: Bool {
        switch self {
        case .ended, .failed: true
        case .idle, .connecting, .live, .reconnecting: false
        }
    }

    /// A short word for a status line: `idle`, `connecting`, `live`, `reconnecting (2)`, `ended`, `failed`.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .live: "live"
        case .reconnecting(let attempt): "reconnecting (\(attempt))"
        case .ended(let reason): "ended (\(reason))"
        case .failed: "failed"
        }
    }
}

/// Why a broadcast ended normally.
public enum BroadcastEndReason: String, Sendable, Hashable, CustomStringConvertible {
    /// The requested duration elapsed.
    case durationReached = "duration reached"
    /// `stop()` was called (e.g. Ctrl-C).
    case stopped
    /// The readable reason.
    public var description: String { rawValue }
}
