/// Where the facecam picture goes: a pure function of the frame and camera sizes and the PiP settings.
public enum PiPLayout {
    /// The smallest picture width, as a fraction of the frame width.
    public static let minimumScale = 0.10
    /// The largest picture width, as a fraction of the frame width.
    public static let maximumScale = 0.40
    /// The default distance from the frame edges, in points.
    public static let defaultInsetPoints = 24.0

    /// The picture's rectangle, with even coordinates and size so it lines up with I420's 2×2 chroma blocks.
    ///
    /// The width is `scale` × the frame width (scale clamped to 0.10...0.40), the height keeps the camera's aspect
    /// ratio; a picture taller than the frame (a portrait camera in a landscape frame at 40 %) shrinks to fit.
    /// - Parameters:
    ///   - frameWidth: width of the frame being composited, in pixels.
    ///   - frameHeight: height of the frame, in pixels.
    ///   - cameraWidth: camera picture width (only its aspect ratio matters).
    ///   - cameraHeight: camera picture height.
    ///   - corner: which corner.
    ///   - scale: picture width as a fraction of the frame width.
    ///   - insetPoints: distance from the two nearest edges, in points.
    ///   - displayScale: pixels per point in *this* frame: the screen scale × encode width / screen width
    ///     (1 on Linux).
    /// - Returns: the rectangle inside the frame.
    public static func rect(frameWidth: Int, frameHeight: Int, cameraWidth: Int, cameraHeight: Int,
                            corner: PiPCorner, scale: Double, insetPoints: Double = defaultInsetPoints,
                            displayScale: Double = 1) -> PiPRect {
        let frameWidth = max(frameWidth, 2)
        let frameHeight = max(frameHeight, 2)
        let clampedScale = scale.isNaN ? minimumScale : min(max(scale, minimumScale), maximumScale)
        let insetValue = insetPoints * displayScale
        let maxInset = min(frameWidth, frameHeight) / 4
        let inset = insetValue.isFinite ? even(min(max(Int(insetValue.rounded()), 0), maxInset)) : 0
        let aspect = Double(max(cameraHeight, 1)) / Double(max(cameraWidth, 1))

        var width = max(even(Int(Double(frameWidth) * clampedScale)), 2)
        var height = max(even(Int((Double(width) * aspect).rounded())), 2)
        let availableHeight = max(even(frameHeight - 2 * inset), 2)
        if height > availableHeight {
            height = availableHeight
            width = max(even(Int((Double(height) / aspect).rounded())), 2)
        }
        let x = corner.isLeft ? inset : max(even(frameWidth - inset - width), 0)
        let y = corner.isTop ? inset : max(even(frameHeight - inset - height), 0)
        return PiPRect(x: x, y: y, width: width, height: height)
    }

    private static func even(_ value: Int) -> Int { value & ~1 }
}
