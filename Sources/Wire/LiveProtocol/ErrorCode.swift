/// The codes a refused request carries, as the seed names them, plus those for bad input and load.
public enum ErrorCode: String, Sendable, Hashable, CaseIterable {
    /// Only a host may do that (go live, end, OBS keys, main picture), or only a host or mod (moderation), or only
    /// a host may act on that user (a mod acting on the host or another mod).
    case notHost = "not_host"
    /// The role watches only.
    case readOnly = "read_only"
    /// Slow mode: `retryAfter` says how many seconds to wait.
    case slow
    /// The user is timed out: `retryAfter` says how many seconds are left.
    case timeout
    /// No valid token where one is needed, a bad or expired token (the reason says which), or a role of none.
    case unauthorized
    /// No declared pattern matches the stream name.
    case notFound = "not_found"
    /// The user is banned from this stream.
    case banned
    /// Malformed or out-of-range input: bad JSON, an unknown op, a missing field, text too long, a message that
    /// does not exist.
    case invalid
    /// Too many requests or reactions from this sender: `retryAfter` seconds until the next is taken.
    case rateLimited = "rate_limited"
    /// The server could not store the change (nothing was changed); try again.
    case unavailable
}
