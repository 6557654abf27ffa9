import AppLogic
import StreamCore
import Testing

@Suite struct ImageTransformTests {
    private func expectPoint(_ point: (x: Double, y: Double), _ x: Double, _ y: Double,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(point.x - x) < 1e-9 && abs(point.y - y) < 1e-9, "(\(point.x), \(point.y)) is not (\(x), \(y))",
                sourceLocation: sourceLocation)
    }

    @Test func concatenatingAppliesTheFirstThenTheNext() {
        let scaleThenMove = ImageTransform.scale(x: 2, y: 3).concatenating(.translation(x: 10, y: 20))
        expectPoint(scaleThenMove.apply(x: 1, y: 1), 12, 23)
        let moveThenScale = ImageTransform.translation(x: 10, y: 20).concatenating(.scale(x: 2, y: 3))
        expectPoint(moveThenScale.apply(x: 1, y: 1), 22, 63)
        #expect(ImageTransform.identity.concatenating(scaleThenMove) == scaleThenMove)
        #expect(scaleThenMove.concatenating(.identity) == scaleThenMove)
    }

    @Test func fitMapsTheExtentOntoTheTarget() {
        // A 1179 × 2556 screen whose extent starts at (5, 7), fitted to a 720 × 1560 encode.
        let fit = ImageTransform.fit(extentX: 5, extentY: 7, extentWidth: 1179, extentHeight: 2556,
                                     width: 720, height: 1560)
        expectPoint(fit.apply(x: 5, y: 7), 0, 0)
        expectPoint(fit.apply(x: 5 + 1179, y: 7 + 2556), 720, 1560)
        expectPoint(fit.apply(x: 5 + 1179.0 / 2, y: 7), 360, 0)
    }

    @Test(arguments: [false, true])
    func theCameraLandsInTheOverlayMirroredOrNot(mirrored: Bool) {
        // The bottom-right overlay of FacecamOverlayTests: 320 × 240 at (936, 24), from a 640 × 480 camera.
        var overlay = FacecamOverlay(frame: PixelSize(width: 1280, height: 720), cameraWidth: 640, cameraHeight: 480,
                                     settings: StreamSettings(), displayScale: 1)
        overlay.mirrored = mirrored
        #expect(overlay.x == 936 && overlay.y == 24 && overlay.width == 320 && overlay.height == 240)
        let transform = overlay.cameraTransform(extentWidth: 640, extentHeight: 480)
        // The camera's left edge goes to the overlay's right edge when mirrored, as in a mirror.
        expectPoint(transform.apply(x: 0, y: 0), mirrored ? 1256 : 936, 24)
        expectPoint(transform.apply(x: 640, y: 480), mirrored ? 936 : 1256, 264)
        expectPoint(transform.apply(x: 160, y: 240), mirrored ? 1176 : 1016, 144)
    }

    @Test func theCameraExtentsOriginIsRemovedFirst() {
        var overlay = FacecamOverlay(frame: PixelSize(width: 1280, height: 720), cameraWidth: 640, cameraHeight: 480,
                                     settings: StreamSettings(), displayScale: 1)
        overlay.mirrored = false
        let transform = overlay.cameraTransform(extentX: -10, extentY: 20, extentWidth: 640, extentHeight: 480)
        expectPoint(transform.apply(x: -10, y: 20), 936, 24)
    }
}
