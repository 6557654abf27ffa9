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
