/// What a handshake machine produced from the bytes it was given.
public struct HandshakeStep: Sendable, Equatable {
    /// Bytes to send to the peer now (may be empty).
    public var reply: [UInt8]
    /// Whether the handshake is finished; chunk stream bytes follow.
    public var isComplete: Bool
    /// Bytes received after the end of the handshake: the start of the chunk stream, to feed to a `ChunkDecoder`.
    public var remaining: [UInt8]

    /// Creates a step.
    public init(reply: [UInt8] = [], isComplete: Bool = false, remaining: [UInt8] = []) {
        self.reply = reply
        self.isComplete = isComplete
        self.remaining = remaining
    }
}
