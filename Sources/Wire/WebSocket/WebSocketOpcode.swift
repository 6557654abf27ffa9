/// A frame's opcode (RFC 6455 §5.2).
public enum WebSocketOpcode: UInt8, Sendable, Equatable {
    /// A later fragment of a fragmented message.
    case continuation = 0x0
    /// The first (or only) frame of a text message.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// The closing handshake (§5.5.1).
    case close = 0x8
    /// A ping, answered with a pong carrying the same payload (§5.5.2).
    case ping = 0x9
    /// A pong (§5.5.3).
    case pong = 0xA

    /// §5.5: control frames (close, ping, pong) have opcodes with the high bit set.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
