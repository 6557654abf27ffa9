/// A DTLS failure: a ``code`` to switch on, and what went wrong in words a person can act on.
public struct DTLSError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// OpenSSL could not make a key, certificate, context or session, or export the keys: a local failure.
        case setup
        /// The peer never finished the handshake in time.
        case timeout
        /// The handshake failed (an alert, bad records, no shared cipher).
        case handshakeFailed
        /// The peer's certificate is missing or does not match the fingerprint its SDP announced.
        case certificate
        /// The peer did not agree to an SRTP protection profile (RFC 5764 §4.1.1).
        case noSRTPProfile
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
