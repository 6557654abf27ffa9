import Testing
import AppLogic
import Media
import StreamCore

@Suite struct FacecamOverlayTests {
    private func settings(_ corner: StreamSettings.PiPCorner, scale: Double = 0.25,
                          camera: StreamSettings.CameraPosition = .front) -> StreamSettings {
        var settings = StreamSettings()
        settings.pipCorner = corner
        settings.pipScale = scale
        settings.cameraPosition = camera
        return settings
    }

    @Test(arguments: StreamSettings.PiPCorner.allCases)
    func coreImageRectIsTheLinuxRectFlippedVertically(_ corner: StreamSettings.PiPCorner) {
        let frame = PixelSize(width: 1280, height: 720)
        let overlay = FacecamOverlay(frame: frame, cameraWidth: 640, cameraHeight: 480, settings: settings(corner),
                                     displayScale: 1)
        let mediaCorner: PiPCorner = switch corner {
        case .topLeft: .topLeft
        case .topRight: .topRight
        case .bottomLeft: .bottomLeft
        case .bottomRight: .bottomRight
        }
        let rect = PiPLayout.rect(frameWidth: 1280, frameHeight: 720, cameraWidth: 640, cameraHeight: 480,
                                  corner: mediaCorner, scale: 0.25)
        #expect(overlay.x == rect.x)
        #expect(overlay.width == rect.width)
        #expect(overlay.height == rect.height)
        #expect(overlay.y + overlay.height + rect.y == 720)
    }

    @Test func bottomRightSitsAboveTheBottomInset() {
        // 1280x720 frame, 25 % → 320 wide, 4:3 camera → 240 high, 24 pt inset at 1 px/pt.
        let overlay = FacecamOverlay(frame: PixelSize(width: 1280, height: 720), cameraWidth: 640, cameraHeight: 480,
                                     settings: settings(.bottomRight), displayScale: 1)
        #expect(overlay.x == 1280 - 24 - 320)
        #expect(overlay.y == 24)
        #expect(overlay.width == 320)
        #expect(overlay.height == 240)
        #expect(abs(overlay.cornerRadius - 240 * 0.12) < 1e-9)
    }

    @Test func topLeftInCoreImageCoordinates() {
        let overlay = FacecamOverlay(frame: PixelSize(width: 1280, height: 720), cameraWidth: 640, cameraHeight: 480,
                                     settings: settings(.topLeft), displayScale: 1)
        #expect(overlay.x == 24)
        #expect(overlay.y == 720 - 24 - 240)
    }

    @Test(arguments: [(StreamSettings.CameraPosition.front, true), (.back, false)])
    func onlyTheFrontCameraIsMirrored(_ camera: StreamSettings.CameraPosition, _ mirrored: Bool) {
        let overlay = FacecamOverlay(frame: PixelSize(width: 720, height: 1560), cameraWidth: 640, cameraHeight: 480,
                                     settings: settings(.bottomRight, camera: camera), displayScale: 1.83)
        #expect(overlay.mirrored == mirrored)
    }

    @Test func theInsetScalesWithPixelsPerPoint() {
        let overlay = FacecamOverlay(frame: PixelSize(width: 720, height: 1560), cameraWidth: 640, cameraHeight: 480,
                                     settings: settings(.topLeft), displayScale: 2)
        #expect(overlay.x == 48)
    }
}
