/// A deterministic "camera" picture, distinct from the screen: solid green with a blue band down the left quarter
/// (so mirroring is visible) and a white stripe sliding through the right half, in I420 or NV12.
public struct CameraPattern: Sendable {
    /// Width of the rendered frames.
    public let width: Int
    /// Height of the rendered frames.
    public let height: Int
    /// I420 or NV12 (the iOS camera delivers NV12).
    public let format: PixelFormat

    /// The background: pure green in BT.601 limited range.
    public static let background = YUVColor(y: 145, u: 54, v: 34)
    /// The left-quarter band: pure blue.
    public static let marker = YUVColor(y: 41, u: 240, v: 110)
    /// The sliding stripe: white.
    public static let stripe = YUVColor(y: 235, u: 128, v: 128)

    /// Prepares a pattern, by default 640×480 NV12.
    /// - Precondition: I420 or NV12, at least 32×32, even size.
    public init(width: Int = 640, height: Int = 480, format: PixelFormat = .nv12) {
        precondition(format != .bgra, "the camera pattern is YUV")
        precondition(width >= 32 && height >= 32 && width % 2 == 0 && height % 2 == 0,
                     "the camera pattern needs an even size of at least 32x32")
        self.width = width
        self.height = height
        self.format = format
    }

    /// Width of the blue band on the left.
    public var markerWidth: Int { width / 4 / 2 * 2 }

    /// Where the white stripe is in frame `index`: inside the right half, 4 pixels further per frame.
    public func stripeRect(frameIndex index: Int) -> PiPRect {
        let stripeWidth = max(2, width / 16 / 2 * 2)
        let travel = max(width / 2 - stripeWidth, 1)
        return PiPRect(x: width / 2 + (index &* 4) % travel / 2 * 2, y: 0, width: stripeWidth, height: height)
    }

    /// The colour the pattern has at (`x`, `y`) in frame `index`.
    public func color(x: Int, y: Int, frameIndex index: Int) -> YUVColor {
        if x < markerWidth { return Self.marker }
        return stripeRect(frameIndex: index).contains(x: x, y: y) ? Self.stripe : Self.background
    }

    /// Draws frame `index` into `frame`.
    /// - Precondition: `frame` has this pattern's format and size and is uniquely referenced.
    public func render(frameIndex index: Int, into frame: inout VideoFrame) {
        precondition(frame.format == format && frame.width == width && frame.height == height,
                     "CameraPattern renders \(format) \(width)x\(height), not \(frame.layout)")
        let stripe = stripeRect(frameIndex: index)
        frame.withUnsafeMutablePlanes { planes in
            planes.fillRect(x: 0, y: 0, width: width, height: height, color: Self.background)
            planes.fillRect(x: 0, y: 0, width: markerWidth, height: height, color: Self.marker)
            planes.fillRect(x: stripe.x, y: stripe.y, width: stripe.width, height: stripe.height, color: Self.stripe)
        }
    }
}
