import Testing
import Media

@Suite struct PiPLayoutTests {
    @Test(arguments: [
        (PiPCorner.topLeft, PiPRect(x: 24, y: 24, width: 320, height: 240)),
        (.topRight, PiPRect(x: 936, y: 24, width: 320, height: 240)),  // 1280 − 24 − 320
        (.bottomLeft, PiPRect(x: 24, y: 456, width: 320, height: 240)),  // 720 − 24 − 240
        (.bottomRight, PiPRect(x: 936, y: 456, width: 320, height: 240)),
    ])
    func cornersAt720p(corner: PiPCorner, expected: PiPRect) {
        let rect = PiPLayout.rect(frameWidth: 1280, frameHeight: 720, cameraWidth: 640, cameraHeight: 480,
                                  corner: corner, scale: 0.25)
        #expect(rect == expected)
    }

    @Test(arguments: [(0.05, 128), (0.10, 128), (0.25, 320), (0.40, 512), (0.75, 512), (Double.nan, 128)])
    func scaleIsClampedToTenToFortyPercent(scale: Double, width: Int) {
        let rect = PiPLayout.rect(frameWidth: 1280, frameHeight: 720, cameraWidth: 640, cameraHeight: 480,
                                  corner: .topLeft, scale: scale)
        #expect(rect.width == width)
        #expect(rect.height == width * 3 / 4)  // the camera's 4:3 aspect is kept
    }

    @Test func insetIsPointsTimesDisplayScale() {
        let rect = PiPLayout.rect(frameWidth: 1179, frameHeight: 2556, cameraWidth: 1920, cameraHeight: 1080,
                                  corner: .topLeft, scale: 0.3, insetPoints: 24, displayScale: 3)
        #expect(rect.x == 72 && rect.y == 72)
        let bottomRight = PiPLayout.rect(frameWidth: 1179, frameHeight: 2556, cameraWidth: 1920, cameraHeight: 1080,
                                         corner: .bottomRight, scale: 0.3, insetPoints: 24, displayScale: 3)
        #expect(bottomRight.x + bottomRight.width <= 1179 - 72)
        #expect(bottomRight.y + bottomRight.height <= 2556 - 72)
        #expect(1179 - 72 - (bottomRight.x + bottomRight.width) <= 1)  // only even rounding separates them
    }

    @Test(arguments: [(720, 1562), (1280, 720), (1179, 2556), (853, 480), (1920, 1080)])
    func everyValueIsEvenAndInsideTheFrame(width: Int, height: Int) {
        for corner in PiPCorner.allCases {
            for scale in stride(from: 0.1, through: 0.4, by: 0.037) {
                let rect = PiPLayout.rect(frameWidth: width, frameHeight: height, cameraWidth: 640, cameraHeight: 480,
                                          corner: corner, scale: scale, insetPoints: 24, displayScale: 1.5)
                #expect(rect.x % 2 == 0 && rect.y % 2 == 0 && rect.width % 2 == 0 && rect.height % 2 == 0)
                #expect(rect.x >= 0 && rect.y >= 0)
                #expect(rect.x + rect.width <= width && rect.y + rect.height <= height)
            }
        }
    }

    @Test func aPortraitCameraThatWouldOverflowShrinksToFit() {
        let rect = PiPLayout.rect(frameWidth: 1280, frameHeight: 720, cameraWidth: 480, cameraHeight: 640,
                                  corner: .topRight, scale: 0.4)
        #expect(rect.height == 672)  // 720 − 2 × 24
        #expect(rect.width == 504)  // 672 × 3 / 4, aspect kept
        #expect(rect.y == 24)
    }
}
