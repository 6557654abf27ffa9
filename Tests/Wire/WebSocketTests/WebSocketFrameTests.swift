import Testing
import WebSocket

struct WebSocketFrameTests {
    /// §5.7's examples, encoded.
    @Test func encodesTheRFCExamples() {
        let hello = Array("Hello".utf8)
        #expect(WebSocketFrame(opcode: .text, payload: hello).encoded()
                == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(WebSocketFrame(opcode: .text, payload: hello).encoded(maskingKey: 0x37FA_213D)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)).encoded()
                == [0x01, 0x03, 0x48, 0x65, 0x6C])
        #expect(WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)).encoded() == [0x80, 0x02, 0x6C, 0x6F])
        #expect(WebSocketFrame(opcode: .ping, payload: hello).encoded() == [0x89, 0x05] + hello)
        #expect(WebSocketFrame(opcode: .pong, payload: hello).encoded(maskingKey: 0x37FA_213D)
                == [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        let long = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 256)).encoded()
        #expect(long.prefix(4) == [0x82, 0x7E, 0x01, 0x00])
        let longer = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 65536)).encoded()
        #expect(longer.prefix(10) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    /// The shortest length form: 125 in 7 bits, 126 and 65535 in 16, 65536 in 64.
    @Test(arguments: [(125, 2), (126, 4), (65535, 4), (65536, 10)])
    func usesTheShortestLengthForm(length: Int, headerLength: Int) {
        let frame = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: length)).encoded()
        #expect(frame.count == length + headerLength)
    }

    @Test func serverTextIsOneSharedEncoding() {
        #expect(WebSocketFrame.serverText("hi") == [0x81, 0x02, 0x68, 0x69])
        #expect(WebSocketFrame.serverBinary([1]) == [0x82, 0x01, 0x01])
    }

    @Test func closePayloadCutsTheReasonAtACharacter() {
        let reason = String(repeating: "é", count: 100)  // 200 bytes
        let payload = WebSocketFrame.closePayload(code: .policyViolation, reason: reason)
        #expect(payload.count == 124)  // code + 61 two-byte characters: the 62nd would pass 125
        #expect(payload.prefix(2) == [0x03, 0xF0])
        #expect(String(validating: payload.dropFirst(2), as: UTF8.self) != nil)
    }

    @Test func maskingWorksFromAnyOffset() {
        var whole = [UInt8](0..<100)
        WebSocketMasking.apply(key: 0x0102_0304, to: &whole)
        var front = [UInt8](0..<37)
        var back = [UInt8](37..<100)
        WebSocketMasking.apply(key: 0x0102_0304, offset: 0, to: &front)
        WebSocketMasking.apply(key: 0x0102_0304, offset: 37, to: &back)
        #expect(front + back == whole)
        let expected: [UInt8] = [0x01, 0x03, 0x01, 0x07, 0x05]  // 0^1, 1^2, 2^3, 3^4, 4^1
        #expect(Array(whole.prefix(5)) == expected)
    }
}
