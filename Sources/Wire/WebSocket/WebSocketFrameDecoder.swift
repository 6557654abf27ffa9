import ByteIO

/// Decodes frames (RFC 6455 §5.2) from received bytes: `append(_:)`, then `next()` until nil.
///
/// Each frame comes out as `.header`, its payload unmasked in `.payload` pieces as the bytes arrive (so text can
/// be checked for UTF-8 before the frame ends), then `.end`. The header is checked before any payload is read:
/// reserved bits and opcodes, the masking rule of the receiving side, control frames of at most 125 bytes that
/// are never fragmented, and the payload limit.
public struct WebSocketFrameDecoder: Sendable {
    /// A piece of a frame.
    public enum Part: Sendable, Equatable {
        /// The header of the next frame.
        case header(WebSocketFrameHeader)
        /// Payload bytes, unmasked (never empty).
        case payload([UInt8])
        /// The frame's payload is complete.
        case end
    }

    /// Which masking rule applies (§5.1).
    public enum Expectation: Sendable {
        /// A server receives masked frames only.
        case masked
        /// A client receives unmasked frames only.
        case unmasked
    }

    private enum State: Sendable {
        case header
        case payload(key: UInt32?, remaining: Int, offset: Int)
        case failed(WebSocketError)
    }

    /// §5.5: control frames carry at most 125 bytes.
    public static let maximumControlPayload = 125

    private let expectation: Expectation
    private let maximumPayloadLength: Int
    private var buffer = InputBuffer()
    private var state = State.header

    /// Creates a decoder.
    /// - Parameters:
    ///   - expectation: `.masked` on a server, `.unmasked` on a client.
    ///   - maximumPayloadLength: larger frames are refused with 1009 before their payload is read.
    public init(expecting expectation: Expectation, maximumPayloadLength: Int) {
        self.expectation = expectation
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// Bytes received and not decoded yet.
    public var bufferedByteCount: Int { buffer.count }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        buffer.append(bytes)
    }

    /// The next piece of a frame, or nil when more bytes are needed.
    /// - Throws: ``WebSocketError`` with the close code to fail the connection with (1002, 1009).
    public mutating func next() throws(WebSocketError) -> Part? {
        switch state {
        case .failed(let error):
            throw error
        case .header:
            do {
                guard let header = try decodeHeader() else { return nil }
                state = .payload(key: header.maskingKey, remaining: header.payloadLength, offset: 0)
                return .header(header)
            } catch {
                state = .failed(error)
                throw error
            }
        case .payload(let key, let remaining, let offset):
            if remaining == 0 {
                state = .header
                return .end
            }
            guard !buffer.isEmpty else { return nil }
            let count = min(remaining, buffer.count)
            var bytes = buffer.read(count)
            if let key { WebSocketMasking.apply(key: key, offset: offset, to: &bytes) }
            state = .payload(key: key, remaining: remaining - count, offset: offset + count)
            return .payload(bytes)
        }
    }

    private mutating func decodeHeader() throws(WebSocketError) -> WebSocketFrameHeader? {
        guard buffer.count >= 2 else { return nil }
        let first = buffer[0]
        let second = buffer[1]
        guard first & 0x70 == 0 else {
            throw .protocolError("a frame has reserved bits set (RSV1-3) but no extension was negotiated")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("a frame has the reserved opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        switch expectation {
        case .masked where !masked: throw .protocolError("a client sent an unmasked frame")
        case .unmasked where masked: throw .protocolError("a server sent a masked frame")
        case .masked, .unmasked: break
        }
        var length = Int(second & 0x7F)
        var headerLength = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            headerLength = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            guard buffer[2] & 0x80 == 0 else { throw .protocolError("a frame's 64-bit length has its top bit set") }
            length = 0
            for index in 2..<10 { length = length << 8 | Int(buffer[index]) }
            headerLength = 10
        }
        if opcode.isControl {
            guard fin else { throw .protocolError("a fragmented control frame") }
            guard length <= Self.maximumControlPayload else {
                throw .protocolError("a control frame with \(length) bytes of payload (at most 125)")
            }
        }
        guard length <= maximumPayloadLength else {
            throw WebSocketError(.messageTooBig, "a frame of \(length) bytes (the limit is \(maximumPayloadLength))")
        }
        var key: UInt32?
        if masked {
            guard buffer.count >= headerLength + 4 else { return nil }
            var value: UInt32 = 0
            for index in headerLength..<(headerLength + 4) { value = value << 8 | UInt32(buffer[index]) }
            key = value
            headerLength += 4
        }
        buffer.skip(headerLength)
        return WebSocketFrameHeader(fin: fin, opcode: opcode, maskingKey: key, payloadLength: length)
    }
}
