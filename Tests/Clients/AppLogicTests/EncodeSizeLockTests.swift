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

    @Test(arguments: [
        // (buffer width, height, UIKit's scale): ReplayKit's frames are the native screen
        (750, 1334, 2.0),     // iPhone SE (2nd, 3rd generation)
        (828, 1792, 2.0),     // iPhone 11
        (1080, 2340, 3.0),    // iPhone 12 and 13 mini (native 2.88)
        (1170, 2532, 3.0),    // iPhone 12 to 14, 16e
        (1179, 2556, 3.0),    // iPhone 14 Pro to 16
        (1206, 2622, 3.0),    // iPhone 16 Pro, 17
        (1260, 2736, 3.0),    // iPhone Air
        (1284, 2778, 3.0),    // iPhone 12 to 14 Pro Max, 14 Plus
        (1290, 2796, 3.0),    // iPhone 15 Plus to 16 Plus, 14 to 15 Pro Max
        (1320, 2868, 3.0),    // iPhone 16 and 17 Pro Max
        (1488, 2266, 2.0),    // iPad mini (6th, 7th generation)
        (1620, 2160, 2.0),    // iPad (9th generation)
        (1640, 2360, 2.0),    // iPad (10th generation), iPad Air 11"
        (1668, 2388, 2.0),    // iPad Pro 11"
        (1668, 2420, 2.0),    // iPad Pro 11" (M4)
        (2048, 2732, 2.0),    // iPad Pro 12.9", iPad Air 13"
        (2064, 2752, 2.0),    // iPad Pro 13" (M4)
    ])
    func estimatesTheScaleFromTheScreen(_ width: Int, _ height: Int, _ scale: Double) {
        for orientation in [ImageOrientation.up, .right] {
            let lock = EncodeSizeLock(bufferWidth: width, bufferHeight: height, orientation: orientation,
                                      quality: .p720)
            #expect(lock.estimatedScreenScale == scale, "\(width) × \(height), \(orientation)")
        }
    }

    @Test func displayScaleFollowsTheDownscale() {
        let lock = EncodeSizeLock(bufferWidth: 1179, bufferHeight: 2556, orientation: .up, quality: .p720)
        #expect(abs(lock.displayScale(screenScale: 3) - 3.0 * 720 / 1179) < 1e-9)
    }
}
