import Testing
@testable import StreamCore

@Suite struct EncodeGeometryTests {
    @Test func portraitIPhoneScreenAt720p() {
        let size = EncodeGeometry.lockedSize(sourceWidth: 1179, sourceHeight: 2556, quality: .p720)
        #expect(size == PixelSize(width: 720, height: 1560))
        #expect(size.isPortrait)
    }

    @Test func landscapeStaysLandscape() {
        #expect(EncodeGeometry.lockedSize(sourceWidth: 2556, sourceHeight: 1179, quality: .p720)
                == PixelSize(width: 1560, height: 720))
    }

    @Test(arguments: [
        // (source width, source height, quality, expected width, expected height)
        (1920, 1080, StreamSettings.Quality.p1080, 1920, 1080),  // exact match
        (1920, 1080, .p720, 1280, 720),
        (1920, 1080, .p480, 854, 480),        // 853.33 → nearest even 854
        (1280, 720, .p1080, 1280, 720),       // never upscaled
        (640, 360, .p720, 640, 360),
        (1081, 1921, .p1080, 1080, 1920),     // odd source: short edge down to even; 1919.2 → 1920
        (1081, 1919, .p1080, 1080, 1918),     // 1917.2 → 1918, capped to the source's even long edge
        (1170, 2532, .p1080, 1080, 2338),     // 2337.2 → 2338
        (2048, 2732, .p1080, 1080, 1440),     // iPad Pro portrait, 3:4
        (1000, 1000, .p720, 720, 720),        // square
        (3, 2, .p480, 2, 2),                  // tiny source
    ])
    func computesLockedSize(_ width: Int, _ height: Int, _ quality: StreamSettings.Quality, _ expectedWidth: Int,
                            _ expectedHeight: Int) {
        #expect(EncodeGeometry.lockedSize(sourceWidth: width, sourceHeight: height, quality: quality)
                == PixelSize(width: expectedWidth, height: expectedHeight))
    }

    @Test(arguments: StreamSettings.Quality.allCases)
    func everyResultIsEvenNotUpscaledSameOrientationAndKeepsTheAspect(_ quality: StreamSettings.Quality) {
        for width in stride(from: 2, through: 3000, by: 97) {
            for height in stride(from: 2, through: 3000, by: 89) {
                let size = EncodeGeometry.lockedSize(sourceWidth: width, sourceHeight: height, quality: quality)
                #expect(size.width % 2 == 0 && size.height % 2 == 0)
                #expect(size.width <= width && size.height <= height)
                // Orientation is kept; a nearly square source may round to square.
                #expect(width >= height ? size.width >= size.height : size.height >= size.width)
                #expect(min(size.width, size.height) == min(quality.shortEdge, min(width, height)) & ~1)
                // The long edge is within one even step of the exact aspect (or capped by the source).
                let shortEdge = Double(min(size.width, size.height))
                let exact = Double(max(width, height)) * shortEdge / Double(min(width, height))
                let long = Double(max(size.width, size.height))
                #expect(abs(long - exact) <= 2 || long == Double(max(width, height) & ~1))
            }
        }
    }
}
