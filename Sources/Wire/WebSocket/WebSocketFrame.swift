/// A frame's header (RFC 6455 §5.2), as decoded: the payload follows separately.
public struct WebSocketFrameHeader: Sendable, Equatable {
    /// The final fragment of a message (always set on control frames).
    public var fin: Bool
    /// The opcode.
    public var opcode: WebSocketOpcode
    /// The masking key, present on every client-to-server frame.
    public var maskingKey: UInt32?
    /// The payload length.
    public var payloadLength: Int

    /// Creates a header.
    public init(fin: Bool, opcode: WebSocketOpcode, maskingKey: UInt32?, payloadLength: Int) {
        self.fin = fin
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payloadLength = payloadLength
    }
}

/// A whole frame, for sending: ``encoded(maskingKey:)`` gives its bytes.
public struct WebSocketFrame: Sendable, Equatable {
    /// The final fragment of a message.
    public var fin: Bool
    /// The opcode.
    public var opcode: WebSocketOpcode
    /// The unmasked payload.
    public var payload: [UInt8]

    /// Creates a frame.
    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame on the wire: a server sends `maskingKey` nil, a client a fresh random key for every frame.
    /// The payload length takes the shortest of the 7-, 16- and 64-bit forms (§5.2).
    public func encoded(maskingKey: UInt32? = nil) -> [UInt8] {
        let length = payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 14)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(truncatingIfNeeded: length >> 8))
            bytes.append(UInt8(truncatingIfNeeded: length))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
            }
        }
        guard let maskingKey else {
            bytes.append(contentsOf: payload)
            return bytes
        }
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: maskingKey >> UInt32(shift)))
        }
        let payloadStart = bytes.count
        bytes.append(contentsOf: payload)
        bytes.withUnsafeMutableBytes { raw in
            WebSocketMasking.apply(key: maskingKey, offset: 0,
                                   to: UnsafeMutableRawBufferPointer(rebasing: raw[payloadStart...]))
        }
        return bytes
    }

    /// A server's text frame, encoded once: send the same bytes to any number of clients (server frames are not
    /// masked, so they are identical for every receiver).
    public static func serverText(_ text: String) -> [UInt8] {
        WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded()
    }

    /// A server's binary frame, encoded once (see ``serverText(_:)``).
    public static func serverBinary(_ bytes: [UInt8]) -> [UInt8] {
        WebSocketFrame(opcode: .binary, payload: bytes).encoded()
    }

    /// The payload of a close frame: the code, then the reason cut to fit the 125-byte limit of control frames
    /// at a character boundary.
    public static func closePayload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var payload = [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        var budget = 123
        for character in reason {
            let utf8 = Array(String(character).utf8)
            guard utf8.count <= budget else { break }
            payload += utf8
            budget -= utf8.count
        }
        return payload
    }
}
