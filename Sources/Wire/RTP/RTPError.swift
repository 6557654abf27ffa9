/// An RTP or RTCP packet that cannot be read: what is wrong with it.
public struct RTPError: Error, Hashable, CustomStringConvertible {
    /// What is wrong and where.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
