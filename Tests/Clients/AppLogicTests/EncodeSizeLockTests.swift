import Testing
import AppLogic
import StreamCore

@Suite struct EncodeSizeLockTests {
    @Test(arguments: [
        // (buffer width, buffer height, orientation, quality, expected encode width, height)
        (1179, 2556, ImageOrientation.up, StreamSettings.Quality.p720, 720, 1560),    // iPhone, portrait
        (1179, 2556, .right, .p720, 1560, 720),                                      // iPhone held landscape
        (1179, 2556, .left, .p1080, 2342, 1080),                                     // 2341.4 → 2342
        (1179, 2556, .down, .p720, 720, 1560),                                       // upside down: no swap
        (2048, 2732, .up, .p1080, 1080, 1440),                                       // iPad Pro 12.9"
        (2048, 2732, .left, .p720, 960, 720),
        (1, 1, .up, .p480, 2, 2),                                                     // degenerate buffer
    ])
    func locksFromTheUprightScreen(_ width: Int, _ height: Int, _ orientation: ImageOrientation,
                                   _ quality: StreamSettings.Quality, _ encodeWidth: Int, _ encodeHeight: Int) {
        let lock = EncodeSizeLock(bufferWidth: width, bufferHeight: height, orientation: orientation,
                                  quality: quality)
        #expect(lock.size == PixelSize(width: encodeWidth, height: encodeHeight))
        #expect(lock.size.isPortrait == lock.screen.isPortrait || lock.size.width == lock.size.height)
        #expect(lock.needsRotation == (orientation != .up))
    }

    @Test(arguments: [
        // (points width, height, scale, expected pixels)
        (393.0, 852.0, 3.0, PixelSize(width: 1179, height: 2556)),   // iPhone 15 Pro
        (1024.0, 1366.0, 2.0, PixelSize(width: 2048, height: 2732)), // iPad Pro 12.9"
        (390.0, 844.0, 2.88, PixelSize(width: 1123, height: 2431)),  // a non-integer native scale
        (0.0, 0.0, 3.0, PixelSize(width: 2, height: 2)),
        (Double.nan, 100.0, 2.0, PixelSize(width: 2, height: 200)),
    ])
    func pixelSizeFromPoints(_ width: Double, _ height: Double, _ scale: Double, _ expected: PixelSize) {
        #expect(EncodeSizeLock.pixelSize(pointWidth: width, pointHeight: height, scale: scale) == expected)
    }

    @Test func displayScaleFollowsTheDownscale() {
        let lock = EncodeSizeLock(bufferWidth: 1179, bufferHeight: 2556, orientation: .up, quality: .p720)
        #expect(abs(lock.displayScale(screenScale: 3) - 3.0 * 720 / 1179) < 1e-9)
    }
}
