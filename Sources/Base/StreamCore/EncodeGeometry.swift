/// A width and height in pixels.
public struct PixelSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Whether the frame is taller than wide.
    public var isPortrait: Bool { height > width }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}

/// Decides the encode size once, when a broadcast starts; it never changes during the session (mid-stream
/// resolution changes break most RTMP ingests).
public enum EncodeGeometry {
    /// The locked encode size for a source and a quality.
    ///
    /// The short edge is the quality's (480/720/1080) but never more than the source's; the long edge keeps the
    /// source's exact aspect ratio, rounded to the nearest even number; both are even (4:2:0 chroma needs it) and
    /// neither exceeds the source. Orientation is kept: a portrait source gives a portrait frame.
    /// Example: a 1179 × 2556 portrait screen at 720p gives 720 × 1560.
    /// - Parameters:
    ///   - sourceWidth: the source's width in pixels, at least 2.
    ///   - sourceHeight: the source's height in pixels, at least 2.
    ///   - quality: the wanted short edge.
    /// - Returns: the encode size.
    public static func lockedSize(sourceWidth: Int, sourceHeight: Int, quality: StreamSettings.Quality) -> PixelSize {
        lockedSize(source: PixelSize(width: sourceWidth, height: sourceHeight), shortEdge: quality.shortEdge)
    }

    /// The locked encode size for an arbitrary short edge (see `lockedSize(sourceWidth:sourceHeight:quality:)`).
    /// - Parameters:
    ///   - source: the source size; both sides from 2 to 65536 (a programming error otherwise).
    ///   - shortEdge: the wanted short edge, at least 2.
    public static func lockedSize(source: PixelSize, shortEdge: Int) -> PixelSize {
        precondition((2...65_536).contains(source.width) && (2...65_536).contains(source.height),
                     "source size \(source) is outside 2...65536")
        precondition(shortEdge >= 2, "short edge \(shortEdge) is below 2")
        let sourceShort = min(source.width, source.height)
        let sourceLong = max(source.width, source.height)
        let targetShort = min(shortEdge, sourceShort) & ~1
        // Nearest even long edge: 2 * round(long * short' / (2 * short)), in integers (no float rounding drift).
        var targetLong = 2 * ((sourceLong * targetShort + sourceShort) / (2 * sourceShort))
        targetLong = max(targetShort, min(targetLong, sourceLong & ~1))
        return source.width >= source.height
            ? PixelSize(width: targetLong, height: targetShort)
            : PixelSize(width: targetShort, height: targetLong)
    }
}
