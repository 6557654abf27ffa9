/// A rectangle of the screen to capture, in pixels from the top-left corner of the root window.
public struct ScreenRegion: Sendable, Hashable, CustomStringConvertible {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Describes a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Parses `WxH+X+Y` (X11 geometry, e.g. `1280x720+0+0`) or `WxH` (at the top-left corner).
    /// - Returns: nil when the text is not such a geometry.
    public init?(geometry: String) {
        let parts = geometry.split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 3 else { return nil }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0, height > 0 else {
            return nil
        }
        var x = 0
        var y = 0
        if parts.count == 3 {
            guard let left = Int(parts[1]), let top = Int(parts[2]), left >= 0, top >= 0 else { return nil }
            x = left
            y = top
        }
        self.init(x: x, y: y, width: width, height: height)
    }

    /// Whether the region lies inside a screen of the given size.
    public func fits(screenWidth: Int, screenHeight: Int) -> Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= screenWidth && y + height <= screenHeight
    }

    /// `WxH+X+Y`.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
