import Media
import StreamCore

/// Where and how the Core Image compositor draws the camera picture: `PiPLayout`'s rectangle (the one the Linux
/// compositor uses) converted to Core Image's bottom-left origin, plus the mirror and corner radius.
public struct FacecamOverlay: Sendable, Hashable {
    /// Left edge in pixels.
    public var x: Int
    /// Bottom edge in pixels, counted from the bottom of the frame (Core Image coordinates).
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Corner radius in pixels.
    public var cornerRadius: Double
    /// Whether the camera picture is flipped horizontally (front camera, like a mirror).
    public var mirrored: Bool

    /// The overlay for one frame.
    /// - Parameters:
    ///   - frame: the encode size.
    ///   - cameraWidth: the camera picture's width (only its aspect ratio matters).
    ///   - cameraHeight: the camera picture's height.
    ///   - settings: corner, scale and camera position.
    ///   - displayScale: pixels per point of the encoded frame (`EncodeSizeLock.displayScale(screenScale:)`).
    public init(frame: PixelSize, cameraWidth: Int, cameraHeight: Int, settings: StreamSettings,
                displayScale: Double) {
        let rect = PiPLayout.rect(frameWidth: frame.width, frameHeight: frame.height, cameraWidth: cameraWidth,
                                  cameraHeight: cameraHeight, corner: Self.corner(settings.pipCorner),
                                  scale: settings.pipScale, insetPoints: PiPLayout.defaultInsetPoints,
                                  displayScale: displayScale)
        x = rect.x
        y = frame.height - rect.y - rect.height
        width = rect.width
        height = rect.height
        cornerRadius = Double(min(rect.width, rect.height)) * PiPConfiguration.defaultCornerRadiusFraction
        mirrored = settings.cameraPosition == .front
    }

    /// Where the camera picture goes: its extent fitted to the overlay's size, flipped left to right inside it when
    /// `mirrored` (x → width − x), then moved to the overlay's corner.
    /// - Parameters:
    ///   - extentX: the camera image's extent (`CIImage.extent`), left edge.
    ///   - extentY: its bottom edge.
    ///   - extentWidth: its width, above zero.
    ///   - extentHeight: its height, above zero.
    public func cameraTransform(extentX: Double = 0, extentY: Double = 0, extentWidth: Double,
                                extentHeight: Double) -> ImageTransform {
        let size = ImageTransform.fit(extentX: extentX, extentY: extentY, extentWidth: extentWidth,
                                      extentHeight: extentHeight, width: Double(width), height: Double(height))
        let mirror = mirrored
            ? ImageTransform.scale(x: -1, y: 1).concatenating(.translation(x: Double(width), y: 0))
            : .identity
        return size.concatenating(mirror).concatenating(.translation(x: Double(x), y: Double(y)))
    }

    private static func corner(_ corner: StreamSettings.PiPCorner) -> PiPCorner {
        switch corner {
        case .topLeft: return .topLeft
        case .topRight: return .topRight
        case .bottomLeft: return .bottomLeft
        case .bottomRight: return .bottomRight
        }
    }
}
