import Testing
import Media

@Suite struct ScreenPatternTests {
    @Test(arguments: [0, 1, 255, 1234, 65_535])
    func frameNumberReadsBack(index: Int) {
        let pattern = ScreenPattern(width: 640, height: 360)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 640, height: 360))
        pattern.render(frameIndex: index, into: &frame)
        #expect(pattern.readFrameNumber(from: frame) == index)
    }

    @Test func renderingIsDeterministicAndMoves() {
        let pattern = ScreenPattern(width: 320, height: 180)
        let layout = FrameLayout(format: .bgra, width: 320, height: 180)
        var first = VideoFrame(layout: layout)
        var again = VideoFrame(layout: layout)
        pattern.render(frameIndex: 10, into: &first)
        pattern.render(frameIndex: 10, into: &again)
        let box = pattern.boxRect(frameIndex: 10)
        #expect(first.bgra(x: box.x + 1, y: box.y + 1) == ScreenPattern.boxColor)
        #expect(pattern.boxRect(frameIndex: 11).x == box.x + 8)
        for (x, y) in [(5, 100), (box.x, box.y), (300, 170), (160, 20)] {
            #expect(first.bgra(x: x, y: y) == again.bgra(x: x, y: y))
        }
    }

    @Test func barsAndRampAreWhereExpected() {
        let pattern = ScreenPattern(width: 800, height: 400)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 800, height: 400))
        pattern.render(frameIndex: 0, into: &frame)
        for bar in 0..<8 {
            #expect(frame.bgra(x: bar * 100 + 50, y: 150) == ScreenPattern.barColors[bar])
        }
        #expect(frame.bgra(x: 0, y: 399) == BGRAColor(b: 0, g: 0, r: 0))  // ramp starts black
        #expect(frame.bgra(x: 799, y: 399) == BGRAColor(b: 255, g: 255, r: 255))  // and ends white
    }
}

@Suite struct ScreenPatternTimeCodeTests {
    @Test(arguments: [0, 1, 0x5A5A, 65_535])
    func timeCodeReadsBackBesideTheFrameNumber(code: Int) {
        let pattern = ScreenPattern(width: 1280, height: 720)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 1280, height: 720))
        pattern.render(frameIndex: 777, timeCode: code, into: &frame)
        #expect(pattern.readTimeCode(from: frame) == code)
        #expect(pattern.readFrameNumber(from: frame) == 777)
    }

    @Test func latencyIsTheDifferenceOfClocksAcrossTheWrap() {
        // 1_800_000_000_000 ms is 180_000_000_000 cs; modulo 65536 that is 2048.
        #expect(ScreenPattern.timeCode(millisecondsSinceEpoch: 1_800_000_000_000) == 2048)
        let code = ScreenPattern.timeCode(millisecondsSinceEpoch: 1_800_000_000_000)
        #expect(ScreenPattern.latency(ofTimeCode: code, at: 1_800_000_000_000 + 1_230) == 1_230)
        // Past the wrap: the code was 65530 (65.53 s into a cycle), now the clock shows 20 (0.2 s into the next).
        #expect(ScreenPattern.latency(ofTimeCode: 65_530, at: (65_536 * 7 + 20) * 10) == 260)
        // A code "from the future" (clocks apart) comes out negative rather than as a huge latency.
        #expect(ScreenPattern.latency(ofTimeCode: 100, at: 90 * 10) == -100)
    }

    @Test func withoutATimeCodeItsRowShowsTheBars() {
        let pattern = ScreenPattern(width: 640, height: 360)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 640, height: 360))
        pattern.render(frameIndex: 0, into: &frame)
        let block = pattern.timeCodeRect(bit: 0)
        #expect(frame.bgra(x: block.x + 1, y: block.y + 1) == ScreenPattern.barColors[0])
    }
}
