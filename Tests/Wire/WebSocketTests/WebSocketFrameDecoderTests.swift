import TestSupport
import Testing
import WebSocket

/// Frames decoded from a stream, payload pieces joined.
private func frames(
    _ vectors: [[UInt8]], _ mode: FeedMode, expecting: WebSocketFrameDecoder.Expectation, limit: Int = 1 << 20
) -> (headers: [WebSocketFrameHeader], payloads: [[UInt8]], error: WebSocketError?) {
    var decoder = WebSocketFrameDecoder(expecting: expecting, maximumPayloadLength: limit)
    var headers: [WebSocketFrameHeader] = []
    var payloads: [[UInt8]] = []
    for piece in mode.pieces(vectors) {
        decoder.append(piece)
        do {
            while let part = try decoder.next() {
                switch part {
                case .header(let header):
                    headers.append(header)
                    payloads.append([])
                case .payload(let bytes):
                    #expect(!bytes.isEmpty)
                    payloads[payloads.count - 1] += bytes
                case .end:
                    #expect(payloads.last?.count == headers.last?.payloadLength)
                }
            }
        } catch {
            return (headers, payloads, error)
        }
    }
    return (headers, payloads, nil)
}

private let hello = Array("Hello".utf8)

struct WebSocketFrameDecoderTests {
    /// RFC 6455 §5.7's examples, as a client receives them (unmasked).
    static let serverFrames: [[UInt8]] = [
        [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F],  // FIN, text, length 5, "Hello"
        [0x01, 0x03, 0x48, 0x65, 0x6C],              // text, not FIN, "Hel"
        [0x80, 0x02, 0x6C, 0x6F],                    // FIN, continuation, "lo"
        [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F],  // FIN, ping, "Hello"
        [0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 0xAB, count: 256),       // binary, 16-bit length 256
        [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + [UInt8](repeating: 0xCD, count: 65536),  // 64-bit length 65536
    ]

    @Test(arguments: FeedMode.allCases)
    func decodesTheRFCExamples(mode: FeedMode) {
        let result = frames(Self.serverFrames, mode, expecting: .unmasked)
        #expect(result.error == nil)
        #expect(result.headers.map(\.opcode) == [.text, .text, .continuation, .ping, .binary, .binary])
        #expect(result.headers.map(\.fin) == [true, false, true, true, true, true])
        #expect(result.headers.allSatisfy { $0.maskingKey == nil })
        #expect(result.payloads[0] == hello && result.payloads[3] == hello)
        #expect(result.payloads[1] + result.payloads[2] == hello)
        #expect(result.payloads[4] == [UInt8](repeating: 0xAB, count: 256))
        #expect(result.payloads[5] == [UInt8](repeating: 0xCD, count: 65536))
    }

    /// §5.7: "A single-frame masked text message" and "Unmasked Ping request and masked Ping response".
    static let clientFrames: [[UInt8]] = [
        [0x81, 0x85,                    // FIN, text, masked, length 5
         0x37, 0xFA, 0x21, 0x3D,        // masking key
         0x7F, 0x9F, 0x4D, 0x51, 0x58], // "Hello" masked
        [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58],  // FIN, pong, masked "Hello"
    ]

    @Test(arguments: FeedMode.allCases)
    func unmasksClientFrames(mode: FeedMode) {
        let result = frames(Self.clientFrames, mode, expecting: .masked)
        #expect(result.error == nil)
        #expect(result.headers.map(\.opcode) == [.text, .pong])
        #expect(result.headers.map(\.maskingKey) == [0x37FA_213D, 0x37FA_213D])
        #expect(result.payloads == [hello, hello])
    }

    /// Headers that fail the connection with 1002 (or 1009 for the size limit), seen before any payload.
    @Test(arguments: [
        ([0xC1, 0x80, 0, 0, 0, 0], WebSocketCloseCode.protocolError),         // RSV1 without an extension
        ([0xA1, 0x80, 0, 0, 0, 0], .protocolError),                           // RSV2
        ([0x91, 0x80, 0, 0, 0, 0], .protocolError),                           // RSV3
        ([0x83, 0x80, 0, 0, 0, 0], .protocolError),                           // reserved data opcode 3
        ([0x8B, 0x80, 0, 0, 0, 0], .protocolError),                           // reserved control opcode 0xB
        ([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F], .protocolError),         // unmasked frame to a server
        ([0x09, 0x80, 0, 0, 0, 0], .protocolError),                           // fragmented ping
        ([0x89, 0xFE, 0x00, 0x7E, 0, 0, 0, 0], .protocolError),               // ping of 126 bytes
        ([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], .protocolError),            // 64-bit length with the top bit
        ([0x82, 0xFF, 0, 0, 0, 0, 0, 0x20, 0, 1], .messageTooBig),            // 2 MiB + 1 over a 1 MiB limit
    ] as [([UInt8], WebSocketCloseCode)])
    func refusesBadHeaders(bytes: [UInt8], code: WebSocketCloseCode) {
        for mode in FeedMode.allCases {
            #expect(frames([bytes], mode, expecting: .masked).error?.closeCode == code, "\(mode)")
        }
    }

    @Test func aClientRefusesMaskedFrames() {
        #expect(frames(Self.clientFrames, .whole, expecting: .unmasked).error?.closeCode == .protocolError)
    }

    @Test func staysFailed() {
        var decoder = WebSocketFrameDecoder(expecting: .masked, maximumPayloadLength: 100)
        decoder.append([0xC1, 0x80])
        #expect(throws: WebSocketError.self) { try decoder.next() }
        decoder.append(Self.clientFrames[0])
        #expect(throws: WebSocketError.self) { try decoder.next() }
    }
}
