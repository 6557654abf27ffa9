import LiveProtocol

/// Why a call on a live stream failed: the server's error codes (`docs/live-protocol.md`), one case each, and the
/// client's own few (no connection, the session is over, no media to go live with).
///
/// Each case carries the server's sentence for people; `slow`, `timeout` and `rateLimited` also carry the whole
/// seconds to wait.
public enum LiveStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `not_host`: only a host may do that (go live, end, OBS key, main picture), only a host or mod may moderate,
    /// or a mod acted on the host or another mod.
    case notHost(String)
    /// `read_only`: the role watches only.
    case readOnly(String)
    /// `slow`: slow mode; try again after `retryAfter` seconds.
    case slow(String, retryAfter: Int)
    /// `timeout`: the user is timed out for `retryAfter` more seconds.
    case timeout(String, retryAfter: Int)
    /// `unauthorized`: a bad, expired or not-yet-valid token (the reason says which), or a role of none.
    case unauthorized(String)
    /// `not_found`: no declared pattern matches the stream name.
    case notFound(String)
    /// `banned`: the user is banned from this stream.
    case banned(String)
    /// `invalid`: malformed or out-of-range input (a message too long, an unknown message id, ...).
    case invalid(String)
    /// `rate_limited`: too many requests or reactions; try again after `retryAfter` seconds.
    case rateLimited(String, retryAfter: Int)
    /// `unavailable`: the server could not store the change (nothing changed), or has no RTMP ingest.
    case unavailable(String)
    /// The client: no connection to the server now (it is reconnecting, or never connected), or it was lost
    /// before the reply came (the request may or may not have been taken).
    case disconnected(String)
    /// The client: this session is over (left, kicked, banned); make a new one with `calls.stream(_:)`.
    case ended(EndReason)
    /// The client: going live needs media (camera, microphone, screen), and it failed or there is none.
    case media(String)

    /// Maps a refusal from the server.
    public init(_ error: ShowError) {
        let wait = error.retryAfter ?? 1
        switch error.code {
        case .notHost: self = .notHost(error.reason)
        case .readOnly: self = .readOnly(error.reason)
        case .slow: self = .slow(error.reason, retryAfter: wait)
        case .timeout: self = .timeout(error.reason, retryAfter: wait)
        case .unauthorized: self = .unauthorized(error.reason)
        case .notFound: self = .notFound(error.reason)
        case .banned: self = .banned(error.reason)
        case .invalid: self = .invalid(error.reason)
        case .rateLimited: self = .rateLimited(error.reason, retryAfter: wait)
        case .unavailable: self = .unavailable(error.reason)
        }
    }

    /// The code as the protocol spells it (`not_host`, `slow`, ...), or the client's own: `disconnected`,
    /// `ended`, `media`.
    public var code: String {
        switch self {
        case .notHost: ErrorCode.notHost.rawValue
        case .readOnly: ErrorCode.readOnly.rawValue
        case .slow: ErrorCode.slow.rawValue
        case .timeout: ErrorCode.timeout.rawValue
        case .unauthorized: ErrorCode.unauthorized.rawValue
        case .notFound: ErrorCode.notFound.rawValue
        case .banned: ErrorCode.banned.rawValue
        case .invalid: ErrorCode.invalid.rawValue
        case .rateLimited: ErrorCode.rateLimited.rawValue
        case .unavailable: ErrorCode.unavailable.rawValue
        case .disconnected: "disconnected"
        case .ended: "ended"
        case .media: "media"
        }
    }

    /// The sentence for people.
    public var reason: String {
        switch self {
        case .notHost(let reason), .readOnly(let reason), .unauthorized(let reason), .notFound(let reason),
             .banned(let reason), .invalid(let reason), .unavailable(let reason), .disconnected(let reason),
             .media(let reason):
            reason
        case .slow(let reason, _), .timeout(let reason, _), .rateLimited(let reason, _):
            reason
        case .ended(let why):
            "the session is over (\(why.rawValue))"
        }
    }

    /// Seconds until the call would be taken (`slow`, `timeout`, `rateLimited`), else nil.
    public var retryAfter: Int? {
        switch self {
        case .slow(_, let seconds), .timeout(_, let seconds), .rateLimited(_, let seconds): seconds
        default: nil
        }
    }

    /// Whether the server refused the session itself (on join): retrying the same way will not help.
    public var refusesSession: Bool {
        switch self {
        case .unauthorized, .notFound, .banned: true
        default: false
        }
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }
}
