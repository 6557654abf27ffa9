import Testing
import Media

@Suite struct FrameConverterTests {
    /// BT.601 limited-range values for pure colours (Y = 16 + 219·Y', U/V = 128 + 224·(B'−Y')/1.772 …).
    static let primaries: [(name: String, bgra: BGRAColor, yuv: YUVColor)] = [
        ("red", BGRAColor(b: 0, g: 0, r: 255), YUVColor(y: 81, u: 90, v: 240)),
        ("green", BGRAColor(b: 0, g: 255, r: 0), YUVColor(y: 145, u: 54, v: 34)),
        ("blue", BGRAColor(b: 255, g: 0, r: 0), YUVColor(y: 41, u: 240, v: 110)),
        ("white", BGRAColor(b: 255, g: 255, r: 255), YUVColor(y: 235, u: 128, v: 128)),
        ("black", BGRAColor(b: 0, g: 0, r: 0), YUVColor(y: 16, u: 128, v: 128)),
    ]

    @Test(arguments: primaries.map { $0.name })
    func bgraToI420MatchesBT601(name: String) throws {
        let expected = try #require(Self.primaries.first { $0.name == name })
        var source = VideoFrame(layout: FrameLayout(format: .bgra, width: 66, height: 34), pts: 42)
        source.fill(expected.bgra)
        var destination = VideoFrame(layout: FrameLayout(format: .i420, width: 66, height: 34))
        try FrameConverter.convert(source, into: &destination)
        #expect(destination.pts == 42)
        for (x, y) in [(0, 0), (65, 33), (31, 17)] {
            let actual = destination.yuv(x: x, y: y)
            #expect(actual.isClose(to: expected.yuv, tolerance: 2), "\(name) at (\(x), \(y)): \(actual)")
        }
    }

    @Test func i420ToBGRARoundTripsPrimaries() throws {
        for primary in Self.primaries {
            var source = VideoFrame(layout: FrameLayout(format: .i420, width: 32, height: 32))
            source.fill(primary.yuv)
            var destination = VideoFrame(layout: FrameLayout(format: .bgra, width: 32, height: 32))
            try FrameConverter.convert(source, into: &destination)
            let pixel = destination.bgra(x: 13, y: 21)
            for (actual, wanted) in [(pixel.b, primary.bgra.b), (pixel.g, primary.bgra.g), (pixel.r, primary.bgra.r)] {
                #expect(abs(Int(actual) - Int(wanted)) <= 3, "\(primary.name): \(pixel)")
            }
            #expect(pixel.a == 255)
        }
    }

    @Test func nv12ToI420KeepsEveryPlane() throws {
        let pattern = CameraPattern(width: 64, height: 48, format: .nv12)
        var source = VideoFrame(layout: FrameLayout(format: .nv12, width: 64, height: 48))
        pattern.render(frameIndex: 3, into: &source)
        var destination = VideoFrame(layout: FrameLayout(format: .i420, width: 64, height: 48))
        try FrameConverter.convert(source, into: &destination)
        for y in stride(from: 0, to: 48, by: 5) {
            for x in stride(from: 0, to: 64, by: 3) {
                #expect(destination.yuv(x: x, y: y) == source.yuv(x: x, y: y))
            }
        }
    }

    @Test(arguments: [(1920, 1080, 1280, 720), (1179, 2556, 720, 1562), (640, 480, 128, 96), (100, 100, 300, 200)])
    func scalingProducesTheRequestedSize(width: Int, height: Int, toWidth: Int, toHeight: Int) throws {
        var i420 = VideoFrame(layout: FrameLayout(format: .i420, width: width, height: height))
        i420.fill(YUVColor(y: 81, u: 90, v: 240))
        var scaledI420 = VideoFrame(layout: FrameLayout(format: .i420, width: toWidth, height: toHeight))
        try FrameConverter.convert(i420, into: &scaledI420, filter: .box)
        #expect(scaledI420.width == toWidth && scaledI420.height == toHeight)
        // libyuv's fixed-point filters truncate (this version's bilinear and box lose up to 1 on flat areas).
        #expect(scaledI420.yuv(x: toWidth / 2, y: toHeight / 2).isClose(to: YUVColor(y: 81, u: 90, v: 240),
                                                                        tolerance: 2))
        #expect(scaledI420.yuv(x: toWidth - 1, y: toHeight - 1).isClose(to: YUVColor(y: 81, u: 90, v: 240),
                                                                        tolerance: 2))

        var bgra = VideoFrame(layout: FrameLayout(format: .bgra, width: width, height: height))
        bgra.fill(BGRAColor(b: 10, g: 20, r: 30))
        var scaledBGRA = VideoFrame(layout: FrameLayout(format: .bgra, width: toWidth, height: toHeight))
        try FrameConverter.convert(bgra, into: &scaledBGRA, filter: .bilinear)
        #expect(scaledBGRA.width == toWidth && scaledBGRA.height == toHeight)
        let samples = [scaledBGRA.bgra(x: toWidth / 2, y: toHeight / 2),
                       scaledBGRA.bgra(x: toWidth - 1, y: toHeight - 1)]
        for pixel in samples {
            #expect(abs(Int(pixel.b) - 10) <= 2 && abs(Int(pixel.g) - 20) <= 2, "\(pixel)")
            #expect(abs(Int(pixel.r) - 30) <= 2 && abs(Int(pixel.a) - 255) <= 2, "\(pixel)")
        }
    }

    @Test func mirrorFlipsLeftAndRight() throws {
        var left = VideoFrame(layout: FrameLayout(format: .i420, width: 64, height: 32))
        // Blue left quarter, green elsewhere: asymmetric left to right.
        CameraPattern(width: 64, height: 32, format: .i420).render(frameIndex: 0, into: &left)
        var mirrored = VideoFrame(layout: FrameLayout(format: .i420, width: 64, height: 32))
        try FrameConverter.mirror(left, into: &mirrored)
        #expect(left.yuv(x: 2, y: 5) == CameraPattern.marker)
        #expect(mirrored.yuv(x: 2, y: 5) == left.yuv(x: 61, y: 5))
        #expect(mirrored.yuv(x: 61, y: 5) == CameraPattern.marker)
    }

    @Test func conversionsNeedingTwoStepsThrow() {
        let source = VideoFrame(layout: FrameLayout(format: .bgra, width: 64, height: 64))
        var destination = VideoFrame(layout: FrameLayout(format: .i420, width: 32, height: 32))
        #expect(throws: MediaError.self) { try FrameConverter.convert(source, into: &destination) }
        var nv12 = VideoFrame(layout: FrameLayout(format: .nv12, width: 64, height: 64))
        #expect(throws: MediaError.self) { try FrameConverter.convert(source, into: &nv12) }
        var wrongSize = VideoFrame(layout: FrameLayout(format: .i420, width: 32, height: 32))
        let i420 = VideoFrame(layout: FrameLayout(format: .i420, width: 64, height: 64))
        #expect(throws: MediaError.self) { try FrameConverter.mirror(i420, into: &wrongSize) }
    }
}
