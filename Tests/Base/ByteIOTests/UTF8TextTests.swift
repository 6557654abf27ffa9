import Testing
import ByteIO

@Suite struct UTF8TextTests {
    @Test func asciiAndMultiByteTextIsKept() {
        #expect(UTF8Text.validated(Array("/hls/live/3f2a9c01/index.m3u8".utf8)) == "/hls/live/3f2a9c01/index.m3u8")
        #expect(UTF8Text.validated([]) == "")
        // RFC 3629 §7's examples: "A≢Α." and the Korean "한국어".
        #expect(UTF8Text.validated([0x41, 0xE2, 0x89, 0xA2, 0xCE, 0x91, 0x2E]) == "A\u{2262}\u{0391}.")
        #expect(UTF8Text.validated([0xED, 0x95, 0x9C, 0xEA, 0xB5, 0xAD, 0xEC, 0x96, 0xB4]) == "한국어")
    }

    /// What RFC 3629 §3 forbids is refused, not repaired: a lone continuation byte, a truncated sequence, an overlong
    /// encoding, a surrogate, bytes that never occur.
    @Test(arguments: [
        [0x80], [0x61, 0xC3], [0xE2, 0x89], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xFE], [0xFF], [0x61, 0xC3, 0x28],
    ] as [[UInt8]])
    func malformedBytesAreRefused(_ bytes: [UInt8]) {
        #expect(UTF8Text.validated(bytes) == nil)
    }
}
