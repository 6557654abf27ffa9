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

/// The readable wall clock (issue 34 item 13b: the binary time code alone reads as a broken picture).
@Suite struct ScreenPatternClockTests {
    // 2026-12-03 12:34:56.789 UTC is 1_764_765_296_789 ms since the epoch.
    static let noon: Int64 = 1_764_765_296_789

    @Test func theTextIsHoursMinutesSecondsAndCentisecondsInUTC() {
        #expect(ClockLabel.text(millisecondsSinceEpoch: Self.noon) == "12:34:56.78")
        #expect(ClockLabel.text(millisecondsSinceEpoch: 0) == "00:00:00.00")
        #expect(ClockLabel.text(millisecondsSinceEpoch: 86_399_999) == "23:59:59.99")
        #expect(ClockLabel.text(millisecondsSinceEpoch: -10) == "23:59:59.99")
    }

    @Test(arguments: [(1280, 720), (854, 480), (1920, 1080), (1179, 2556), (320, 180)])
    func aRenderedTimeReadsBackBesideTheBlocks(width: Int, height: Int) throws {
        let pattern = ScreenPattern(width: width, height: height)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: width, height: height))
        for time in [Self.noon, 0, 86_399_999, Self.noon + 3_600_000 * 7 + 1010] {
            let code = ScreenPattern.timeCode(millisecondsSinceEpoch: time)
            pattern.render(frameIndex: 4321, timeCode: code, clock: time, into: &frame)
            #expect(pattern.readClock(from: frame) == ClockLabel.text(millisecondsSinceEpoch: time))
            // The blocks are still there and still read.
            #expect(pattern.readTimeCode(from: frame) == code)
            #expect(pattern.readFrameNumber(from: frame) == 4321)
        }
    }

    @Test(arguments: [(1280, 720), (640, 360)])
    func theTextSurvivesConversionToI420(width: Int, height: Int) throws {
        let pattern = ScreenPattern(width: 1280, height: 720)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 1280, height: 720))
        pattern.render(frameIndex: 1, clock: Self.noon, into: &frame)
        let converter = EncodeFrameConverter(width: width, height: height)
        let converted = try #require(try converter.convert(frame))
        #expect(converted.format == .i420)
        #expect(pattern.readClock(from: converted) == "12:34:56.78")
    }

    @Test func withoutAClockThereIsNoTextAndTheBarsStayClear() throws {
        let pattern = ScreenPattern(width: 854, height: 480)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 854, height: 480))
        pattern.render(frameIndex: 0, into: &frame)
        #expect(pattern.readClock(from: frame) == nil)
        // With the clock, the label sits between the box and the bars row the browser and WebRTC tests check.
        pattern.render(frameIndex: 0, clock: Self.noon, into: &frame)
        let label = try #require(pattern.clockLabel).rect
        let box = pattern.boxRect(frameIndex: 0)
        #expect(label.y >= box.y + box.height && label.x + label.width <= 854)
        let barsY = (box.y + box.height + 480 * 3 / 4) / 2
        #expect(label.y + label.height < barsY && label.y + label.height < 480 * 65 / 100)
        for bar in 0..<8 {
            #expect(frame.bgra(x: (2 * bar + 1) * 854 / 16, y: barsY) == ScreenPattern.barColors[bar])
        }
    }

    @Test func everyDigitReadsBackInEveryPosition() {
        // A test that reads "some" text would pass on a garbled label: every position must come back as drawn.
        let pattern = ScreenPattern(width: 1280, height: 720)
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 1280, height: 720))
        for second in 0..<10 {
            let time = Int64(second) * 1111 + 36_000_000 * 2
            pattern.render(frameIndex: 0, clock: time, into: &frame)
            #expect(pattern.readClock(from: frame) == ClockLabel.text(millisecondsSinceEpoch: time))
        }
    }
}
