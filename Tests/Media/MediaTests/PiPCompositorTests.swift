import Foundation
import Testing
import Media

@Suite struct PiPCompositorTests {
    /// The screen's colour, unlike anything in the camera pattern.
    static let screenColor = YUVColor(y: 180, u: 100, v: 150)
    static let camera = CameraPattern(width: 640, height: 480, format: .nv12)

    static func screen(width: Int = 1280, height: Int = 720, pts: Int64 = 0) -> VideoFrame {
        var frame = VideoFrame(layout: FrameLayout(format: .i420, width: width, height: height), pts: pts)
        frame.fill(screenColor)
        return frame
    }

    static func cameraFrame(index: Int = 0, pts: Int64 = 0) -> VideoFrame {
        var frame = VideoFrame(layout: FrameLayout(format: camera.format, width: camera.width, height: camera.height),
                               pts: pts)
        camera.render(frameIndex: index, into: &frame)
        return frame
    }

    /// Rows of `frame` (over all planes) that differ from the screen colour somewhere outside `rect`.
    static func changesOutside(_ rect: PiPRect, in frame: VideoFrame) -> Int {
        frame.withUnsafePlanes { planes in
            var changedRows = 0
            for plane in 0..<3 {
                let scale = plane == 0 ? 1 : 2
                let value = [screenColor.y, screenColor.u, screenColor.v][plane]
                let expected = [UInt8](repeating: value, count: planes.layout.rowBytes(ofPlane: 0))
                let rowBytes = planes.layout.rowBytes(ofPlane: plane)
                let (left, right) = (rect.x / scale, (rect.x + rect.width) / scale)
                for row in 0..<planes.layout.rows(ofPlane: plane) {
                    let start = planes.baseAddress(ofPlane: plane) + row * planes.stride(ofPlane: plane)
                    let rowInside = row * scale >= rect.y && row * scale < rect.y + rect.height
                    // Outside the rectangle's rows the whole row must be screen; inside them, left and right of it.
                    let spans = rowInside ? [(0, left), (right, rowBytes)] : [(0, rowBytes)]
                    if spans.contains(where: { memcmp(start + $0.0, expected, $0.1 - $0.0) != 0 }) {
                        changedRows += 1
                    }
                }
            }
            return changedRows
        }
    }

    @Test func theOutsideCheckSeesASinglePixel() {
        var frame = Self.screen()
        let rect = PiPRect(x: 100, y: 100, width: 200, height: 100)
        #expect(Self.changesOutside(rect, in: frame) == 0)
        frame.withUnsafeMutablePlanes { planes in
            planes.baseAddress(ofPlane: 0)[150 * planes.stride(ofPlane: 0) + 99] = 0  // just left of the rect
            planes.baseAddress(ofPlane: 2)[10 * planes.stride(ofPlane: 2) + 639] = 0  // last V sample of a row
            planes.baseAddress(ofPlane: 0)[120 * planes.stride(ofPlane: 0) + 150] = 0  // inside: not counted
        }
        #expect(Self.changesOutside(rect, in: frame) == 2)
    }

    /// The colour at a point of the picture, given in picture coordinates.
    static func picture(_ frame: VideoFrame, _ rect: PiPRect, x: Int, y: Int) -> YUVColor {
        frame.yuv(x: rect.x + x, y: rect.y + y)
    }

    @Test(arguments: PiPCorner.allCases)
    func pictureSitsInTheCornerAndOnlyThere(corner: PiPCorner) throws {
        let compositor = PiPCompositor(configuration: PiPConfiguration(corner: corner, scale: 0.25, camera: .back))
        compositor.cameraSlot.put(Self.cameraFrame())
        let output = compositor.composite(Self.screen())
        let rect = try #require(compositor.lastRect)
        #expect(rect == PiPLayout.rect(frameWidth: 1280, frameHeight: 720, cameraWidth: 640, cameraHeight: 480,
                                       corner: corner, scale: 0.25))
        #expect(compositor.statistics.composited == 1)
        #expect(compositor.statistics.copied == 0)
        #expect(Self.changesOutside(rect, in: output) == 0)
        // Back camera, not mirrored: blue band on the picture's left quarter, green right of it.
        let tolerance = 3
        #expect(Self.picture(output, rect, x: rect.width / 8, y: rect.height / 2)
            .isClose(to: CameraPattern.marker, tolerance: tolerance))
        #expect(Self.picture(output, rect, x: rect.width * 3 / 8, y: rect.height / 2)
            .isClose(to: CameraPattern.background, tolerance: tolerance))
        // The rounded corners show the screen underneath; just inside the radius shows the camera.
        for (x, y) in [(0, 0), (rect.width - 1, 0), (0, rect.height - 1), (rect.width - 1, rect.height - 1)] {
            #expect(Self.picture(output, rect, x: x, y: y) == Self.screenColor, "corner (\(x), \(y))")
        }
        let radius = Int((Double(rect.height) * 0.12).rounded())
        #expect(Self.picture(output, rect, x: radius, y: radius).y != Self.screenColor.y)
        #expect(Self.picture(output, rect, x: 0, y: rect.height / 2).y != Self.screenColor.y)  // straight edge
    }

    @Test func frontCameraIsMirrored() throws {
        let compositor = PiPCompositor(configuration: PiPConfiguration(corner: .topLeft, scale: 0.25, camera: .front))
        compositor.cameraSlot.put(Self.cameraFrame())
        let output = compositor.composite(Self.screen())
        let rect = try #require(compositor.lastRect)
        let tolerance = 3
        // The blue band moved to the right quarter; the left quarter is now green (the stripe is elsewhere).
        #expect(Self.picture(output, rect, x: rect.width - 1 - rect.width / 8, y: rect.height / 2)
            .isClose(to: CameraPattern.marker, tolerance: tolerance))
        #expect(Self.picture(output, rect, x: rect.width / 8, y: rect.height / 2)
            .isClose(to: CameraPattern.background, tolerance: tolerance))
        #expect(Self.changesOutside(rect, in: output) == 0)
    }

    @Test(arguments: [(0.05, 128), (0.10, 128), (0.40, 512), (0.9, 512)])
    func scaleBoundsAreTenAndFortyPercent(scale: Double, width: Int) throws {
        let compositor = PiPCompositor(configuration: PiPConfiguration(corner: .bottomLeft, scale: scale))
        compositor.cameraSlot.put(Self.cameraFrame())
        let output = compositor.composite(Self.screen())
        let rect = try #require(compositor.lastRect)
        #expect(rect.width == width)
        #expect(rect.height == width * 3 / 4)
        #expect(output.yuv(x: rect.x + rect.width / 2, y: rect.y + rect.height / 2).y != Self.screenColor.y)
        #expect(output.yuv(x: rect.x + rect.width, y: rect.y + rect.height / 2) == Self.screenColor)
        #expect(Self.changesOutside(rect, in: output) == 0)
    }

    @Test func disabledPiPPassesTheSameStorageThrough() throws {
        let compositor = PiPCompositor(configuration: .disabled)
        compositor.cameraSlot.put(Self.cameraFrame())
        let screen = Self.screen()
        let output = compositor.composite(screen)
        #expect(output.sharesStorage(with: screen))
        #expect(compositor.statistics.passedThrough == 1)
        #expect(compositor.statistics.composited == 0)
    }

    @Test func noCameraYetIsScreenOnlyWithoutACopy() {
        let compositor = PiPCompositor(configuration: PiPConfiguration())
        let screen = Self.screen()
        let output = compositor.composite(screen)
        #expect(output.sharesStorage(with: screen))
        #expect(compositor.statistics.screenOnly == 1)
    }

    @Test func aSharedScreenFrameIsCopiedNotWrittenUnderItsOtherOwner() throws {
        let compositor = PiPCompositor(configuration: PiPConfiguration(corner: .topLeft))
        compositor.cameraSlot.put(Self.cameraFrame())
        let screen = Self.screen()
        let output = compositor.composite(screen)  // `screen` is still used below, so it is shared
        let rect = try #require(compositor.lastRect)
        #expect(!output.sharesStorage(with: screen))
        #expect(compositor.statistics.copied == 1)
        #expect(screen.yuv(x: rect.x + rect.width / 2, y: rect.y + rect.height / 2) == Self.screenColor)
        #expect(output.yuv(x: rect.x + rect.width / 2, y: rect.y + rect.height / 2) != Self.screenColor)
    }

    @Test func silentCameraFallsBackToScreenOnlyAndResumes() throws {
        let second: Int64 = 1_000_000_000
        let compositor = PiPCompositor(configuration: PiPConfiguration(cameraTimeoutNanoseconds: second))
        compositor.cameraSlot.put(Self.cameraFrame(pts: 0))
        _ = compositor.composite(Self.screen(pts: second / 2))
        #expect(compositor.statistics.composited == 1)
        let rect = try #require(compositor.lastRect)
        let centre = (x: rect.x + rect.width / 2, y: rect.y + rect.height / 2)

        let stale = compositor.composite(Self.screen(pts: second + second / 2))  // 1.5 s after the camera frame
        #expect(stale.yuv(x: centre.x, y: centre.y) == Self.screenColor)
        _ = compositor.composite(Self.screen(pts: 2 * second))
        #expect(compositor.statistics.screenOnly == 2)
        #expect(compositor.statistics.cameraTimeouts == 1)  // counted once per silence, not per frame

        compositor.cameraSlot.put(Self.cameraFrame(pts: 2 * second))
        let resumed = compositor.composite(Self.screen(pts: 2 * second + 1))
        #expect(resumed.yuv(x: centre.x, y: centre.y) != Self.screenColor)
        #expect(compositor.statistics.composited == 2)
        #expect(compositor.statistics.cameraFramesUsed == 2)
    }

    @Test func onlyTheLatestCameraFrameIsUsed() {
        let compositor = PiPCompositor(configuration: PiPConfiguration())
        for index in 0..<5 {
            compositor.cameraSlot.put(Self.cameraFrame(index: index, pts: Int64(index)))
        }
        _ = compositor.composite(Self.screen(pts: 5))
        #expect(compositor.statistics.cameraFramesUsed == 1)
        #expect(compositor.cameraSlot.statistics.dropped == 4)
    }

    @Test func steadyStateAllocatesNothing() throws {
        // Small sizes keep the debug-build test quick; the code path is the same as at 720p.
        let screenPattern = ScreenPattern(width: 640, height: 360)
        let screenPool = FramePool(format: .bgra, width: 640, height: 360, maxCount: 2)
        let cameraPool = FramePool(format: .nv12, width: 640, height: 480, maxCount: 2)
        let converter = EncodeFrameConverter(width: 480, height: 270, maxFrames: 2)
        let compositor = PiPCompositor(configuration: PiPConfiguration(corner: .topRight, scale: 0.3))
        var warmedUp: (screen: PoolStatistics, camera: PoolStatistics, output: PoolStatistics, buffers: Int)?
        let frameDuration: Int64 = 33_333_333
        for index in 0..<300 {
            let pts = Int64(index) * frameDuration
            if index % 2 == 0, var camera = cameraPool.makeFrame(pts: pts) {
                Self.camera.render(frameIndex: index, into: &camera)
                compositor.cameraSlot.put(camera)
            }
            var screen = try #require(screenPool.makeFrame(pts: pts))
            screenPattern.render(frameIndex: index, into: &screen)
            let converted = try #require(try converter.convert(screen))
            let output = compositor.composite(consume converted)  // hand over the only reference: drawn in place
            #expect(output.pts == pts)
            if index == 9 {
                warmedUp = (screenPool.statistics, cameraPool.statistics, converter.statistics,
                            compositor.statistics.bufferAllocations + converter.intermediateAllocations)
            }
        }
        let before = try #require(warmedUp)
        #expect(screenPool.statistics.allocations == before.screen.allocations)
        #expect(cameraPool.statistics.allocations == before.camera.allocations)
        #expect(converter.statistics.allocations == before.output.allocations)
        #expect(compositor.statistics.bufferAllocations + converter.intermediateAllocations == before.buffers)
        #expect(screenPool.statistics.reuses >= 290)
        #expect(converter.statistics.exhaustions == 0)
        #expect(compositor.statistics.composited == 300)
        #expect(compositor.statistics.copied == 0)
        #expect(compositor.statistics.cameraFramesUsed == 150)
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    @Test(arguments: [(1280, 720), (1920, 1080)])
    func compositeTime(width: Int, height: Int) throws {
        let compositor = PiPCompositor(configuration: PiPConfiguration(scale: 0.4))
        var frame = Self.screen(width: width, height: height)
        compositor.cameraSlot.put(Self.cameraFrame())
        frame = compositor.composite(consume frame)  // warm-up: prepares the picture
        let clock = ContinuousClock()
        let runs = 50
        let elapsed = clock.measure {
            for _ in 0..<runs {
                frame = compositor.composite(consume frame)
            }
        }
        var prepare = Duration.zero
        for index in 0..<10 {
            compositor.cameraSlot.put(Self.cameraFrame(index: index))
            prepare += clock.measure { frame = compositor.composite(consume frame) }
        }
        let perFrame = elapsed / runs
        print("PiP composite \(width)x\(height) at 40 %: \(Self.microseconds(perFrame)) µs per screen frame, "
              + "\(Self.microseconds(prepare / 10)) µs with a new camera frame (debug build)")
        #expect(compositor.statistics.copied == 0)
        #expect(compositor.statistics.composited == runs + 11)
        #expect(perFrame < .milliseconds(10))  // a 60 fps frame is 16.7 ms
    }
}
