/// A DTLS failure: what went wrong, in words a person can act on.
public struct DTLSError: Error, Hashable, CustomStringConvertible {
    /// What happened.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
