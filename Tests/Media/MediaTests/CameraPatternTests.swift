import Testing
import Media

@Suite struct CameraPatternTests {
    @Test(arguments: [PixelFormat.nv12, .i420])
    func rendersItsOwnColourModel(format: PixelFormat) {
        let pattern = CameraPattern(width: 640, height: 480, format: format)
        var frame = VideoFrame(layout: FrameLayout(format: format, width: 640, height: 480))
        for index in [0, 7, 100] {
            pattern.render(frameIndex: index, into: &frame)
            for y in stride(from: 0, to: 480, by: 37) {
                for x in stride(from: 0, to: 640, by: 23) {
                    #expect(frame.yuv(x: x, y: y) == pattern.color(x: x, y: y, frameIndex: index))
                }
            }
        }
    }

    @Test func leftAndRightDiffer() {
        let pattern = CameraPattern()
        #expect(pattern.color(x: 10, y: 10, frameIndex: 0) == CameraPattern.marker)
        #expect(pattern.color(x: 629, y: 10, frameIndex: 0) != CameraPattern.marker)
        let stripe = pattern.stripeRect(frameIndex: 5)
        #expect(stripe.x >= 320 && stripe.x + stripe.width <= 640)  // the stripe stays in the right half
        #expect(pattern.stripeRect(frameIndex: 6).x != stripe.x)
    }
}
