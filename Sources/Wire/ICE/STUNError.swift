/// A STUN message that cannot be read (RFC 8489 §6): what is wrong with it.
public struct STUNError: Error, Hashable, CustomStringConvertible {
    /// What is wrong and where.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
