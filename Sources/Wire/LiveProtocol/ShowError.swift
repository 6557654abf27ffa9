/// A refused request: its code, a sentence for people, and for `slow`, `timeout` and `rate_limited` the whole
/// seconds to wait (rounded up).
public struct ShowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code clients switch on.
    public var code: ErrorCode
    /// What happened and what to do, for people.
    public var reason: String
    /// Seconds until the request would be taken (slow, timeout, rate_limited), else nil.
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ code: ErrorCode, _ reason: String, retryAfter: Int? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }
}
