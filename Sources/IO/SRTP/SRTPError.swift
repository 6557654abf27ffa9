/// An SRTP failure: a ``code`` to switch on, and what happened in words.
public struct SRTPError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// The keys were refused (not 30 bytes), or OpenSSL could not set up AES or HMAC: nothing can be protected.
        case setup
        /// A packet failed authentication: a wrong key, or it was altered on the way. Drop it.
        case authentication
        /// A packet came again, or too late for the replay window. Drop it.
        case replay
        /// A packet is malformed, its session tracks too many SSRCs already, or OpenSSL failed otherwise.
        case packet
    }

    /// The kind of failure.
    public let code: Code
    /// What happened.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
