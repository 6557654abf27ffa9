/// An SRTP failure: libsrtp's status, in words.
public struct SRTPError: Error, Hashable, CustomStringConvertible {
    /// What happened.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
