import Testing
import AppLogic

@Suite struct ImageOrientationTests {
    @Test(arguments: [
        (UInt32?.none, ImageOrientation.up),
        (1, .up), (3, .down), (6, .right), (8, .left), (5, .leftMirrored),
        (0, .up), (9, .up), (UInt32.max, .up),
    ])
    func attachmentValues(_ raw: UInt32?, _ expected: ImageOrientation) {
        #expect(ImageOrientation(attachment: raw) == expected)
    }

    @Test(arguments: ImageOrientation.allCases)
    func axesSwapForTheFourRotatedOrientations(_ orientation: ImageOrientation) {
        let rotated: [ImageOrientation] = [.leftMirrored, .right, .rightMirrored, .left]
        #expect(orientation.swapsAxes == rotated.contains(orientation))
    }
}
