import Testing
import Media

@Suite struct EncodeFrameConverterTests {
    @Test func portraitPhoneScreenBecomesI420AtTheEncodeSize() throws {
        let pattern = ScreenPattern(width: 1179, height: 2556)
        var screen = VideoFrame(layout: FrameLayout(format: .bgra, width: 1179, height: 2556), pts: 7)
        pattern.render(frameIndex: 1234, into: &screen)
        let converter = EncodeFrameConverter(width: 720, height: 1562)
        let output = try #require(try converter.convert(screen))
        #expect(output.layout == FrameLayout(format: .i420, width: 720, height: 1562))
        #expect(output.pts == 7)
        #expect(pattern.readFrameNumber(from: output) == 1234)
        #expect(converter.intermediateAllocations == 1)  // one BGRA frame at the encode size, then reused
    }

    @Test func nv12CameraIsConvertedThenScaled() throws {
        let pattern = CameraPattern(width: 640, height: 480, format: .nv12)
        var camera = VideoFrame(layout: FrameLayout(format: .nv12, width: 640, height: 480))
        pattern.render(frameIndex: 0, into: &camera)
        let converter = EncodeFrameConverter(width: 320, height: 240)
        let output = try #require(try converter.convert(camera))
        #expect(output.yuv(x: 20, y: 120).isClose(to: CameraPattern.marker, tolerance: 3))
        #expect(output.yuv(x: 120, y: 120).isClose(to: CameraPattern.background, tolerance: 3))
    }

    @Test func sameSizeScreenIsConvertedDirectly() throws {
        var screen = VideoFrame(layout: FrameLayout(format: .bgra, width: 1280, height: 720))
        screen.fill(BGRAColor(b: 0, g: 0, r: 255))
        let converter = EncodeFrameConverter(width: 1280, height: 720)
        let output = try #require(try converter.convert(screen))
        #expect(output.yuv(x: 640, y: 360).isClose(to: YUVColor(y: 81, u: 90, v: 240), tolerance: 2))
        #expect(converter.intermediateAllocations == 0)
    }

    @Test func framesStillHeldDownstreamMakeTheConverterDrop() throws {
        let screen = VideoFrame(layout: FrameLayout(format: .bgra, width: 64, height: 64))
        let converter = EncodeFrameConverter(width: 32, height: 32, maxFrames: 2)
        let first = try converter.convert(screen)
        let second = try converter.convert(screen)
        #expect(first != nil && second != nil)
        #expect(try converter.convert(screen) == nil)
        #expect(converter.statistics.exhaustions == 1)
    }

    @Test(arguments: [(1920, 1080, 1280, 720), (1179, 2556, 720, 1562), (1280, 720, 1280, 720)])
    func conversionTime(width: Int, height: Int, toWidth: Int, toHeight: Int) throws {
        let pattern = ScreenPattern(width: width, height: height)
        var screen = VideoFrame(layout: FrameLayout(format: .bgra, width: width, height: height))
        pattern.render(frameIndex: 0, into: &screen)
        let converter = EncodeFrameConverter(width: toWidth, height: toHeight, maxFrames: 1)
        _ = try converter.convert(screen)  // warm-up: allocates the output and intermediate frames
        let runs = 10
        var converted = 0
        let elapsed = try ContinuousClock().measure {
            for _ in 0..<runs where try converter.convert(screen) != nil {
                converted += 1
            }
        }
        let perFrame = elapsed / runs
        let microseconds = perFrame.components.seconds * 1_000_000 + perFrame.components.attoseconds / 1_000_000_000_000
        print("BGRA \(width)x\(height) -> I420 \(toWidth)x\(toHeight): \(microseconds) µs per frame")
        #expect(converted == runs)
        #expect(perFrame < .milliseconds(100))  // generous: the machine is shared; catches pathological regressions
    }
}
