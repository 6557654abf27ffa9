import Broadcast
import Testing

/// YUV4MPEG2 header lines as ffmpeg writes them.
struct Y4MHeaderTests {
    @Test func parsesFFmpegsHeader() throws {
        let header = try Y4MHeader(line: "YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG")
        #expect(header.width == 640 && header.height == 480)
        #expect(header.frameRate == (30000, 1001))
        #expect(header.frameByteCount == 640 * 480 * 3 / 2)
    }

    @Test func defaultsToThirtyFramesAndAcceptsNoColourSpace() throws {
        let header = try Y4MHeader(line: "YUV4MPEG2 W3 H3")
        #expect(header.frameRate == (30, 1))
        // Odd sizes: chroma planes round up (2 × 2 each).
        #expect(header.frameByteCount == 9 + 2 * 4)
    }

    @Test(arguments: [
        "YUV4MPEG W640 H480",
        "YUV4MPEG2 W640",
        "YUV4MPEG2 W640 H480 C444",
        "YUV4MPEG2 W640 H480 C420p10",
        "YUV4MPEG2 W640 H480 F30:0",
        "YUV4MPEG2 W0 H480",
        "YUV4MPEG2 W99999 H480",
    ])
    func refusesWhatIsNotEightBit420(line: String) {
        #expect(throws: BroadcastError.self) { try Y4MHeader(line: line) }
    }
}
