/// A whole message, reassembled from its fragments.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (already checked to be UTF-8).
    case text(String)
    /// A binary message.
    case binary([UInt8])

    /// The opcode of the message's first frame.
    public var opcode: WebSocketOpcode {
        switch self {
        case .text: .text
        case .binary: .binary
        }
    }

    /// The payload bytes.
    public var payload: [UInt8] {
        switch self {
        case .text(let text): Array(text.utf8)
        case .binary(let bytes): bytes
        }
    }
}

/// How a WebSocket ended: the close frame's code and reason, or 1006 when the connection ended without one.
public struct WebSocketClose: Sendable, Equatable, CustomStringConvertible {
    /// The code received (or sent, when we failed the connection); 1005 for a close frame without one, 1006 when
    /// no close frame was exchanged.
    public var code: WebSocketCloseCode
    /// The reason text, possibly empty.
    public var reason: String
    /// True when the peer started the closing handshake (or dropped the connection).
    public var initiatedByPeer: Bool

    /// Creates a description of a close.
    public init(code: WebSocketCloseCode, reason: String = "", initiatedByPeer: Bool) {
        self.code = code
        self.reason = reason
        self.initiatedByPeer = initiatedByPeer
    }

    /// "1000 (normal closure) by the peer: bye".
    public var description: String {
        "\(code) by \(initiatedByPeer ? "the peer" : "us")" + (reason.isEmpty ? "" : ": \(reason)")
    }
}
