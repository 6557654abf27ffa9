import StreamCore

/// The encode size and orientation, locked from the first screen frame of a broadcast and kept for the whole
/// session: rotating the device later keeps the original orientation instead of changing the resolution, which
/// most RTMP ingests cannot follow.
public struct EncodeSizeLock: Sendable, Hashable {
    /// The upright screen size in pixels (the buffer's size with axes swapped when the orientation says so).
    public let screen: PixelSize
    /// The orientation every later frame is rendered with.
    public let orientation: ImageOrientation
    /// The encode size: the quality's short edge, the screen's exact aspect ratio, even sides.
    public let size: PixelSize

    /// Locks from the first screen frame.
    /// - Parameters:
    ///   - bufferWidth: the pixel buffer's width (`CVPixelBufferGetWidth`), at least 2.
    ///   - bufferHeight: the pixel buffer's height, at least 2.
    ///   - orientation: the frame's orientation attachment.
    ///   - quality: the quality to encode at (see `MemoryBudget.plan` for the one to use).
    public init(bufferWidth: Int, bufferHeight: Int, orientation: ImageOrientation,
                quality: StreamSettings.Quality) {
        let width = min(max(bufferWidth, 2), 65_536)
        let height = min(max(bufferHeight, 2), 65_536)
        screen = orientation.swapsAxes
            ? PixelSize(width: height, height: width)
            : PixelSize(width: width, height: height)
        self.orientation = orientation
        size = EncodeGeometry.lockedSize(source: screen, shortEdge: quality.shortEdge)
    }

    /// The screen size in pixels from the screen's size in points and its scale (`UIScreen.nativeScale`), used by
    /// the app to preview the encode size and memory estimate before a broadcast.
    /// - Parameters:
    ///   - pointWidth: width in points in the current orientation.
    ///   - pointHeight: height in points.
    ///   - scale: pixels per point.
    /// - Returns: the size in pixels, each side at least 2.
    public static func pixelSize(pointWidth: Double, pointHeight: Double, scale: Double) -> PixelSize {
        func pixels(_ points: Double) -> Int {
            let value = points * scale
            guard value.isFinite else { return 2 }
            return Int(min(max(value.rounded(), 2), 65_536))
        }
        return PixelSize(width: pixels(pointWidth), height: pixels(pointHeight))
    }

    /// Whether frames must be rotated (or mirrored) before encoding; an upright frame can pass through.
    public var needsRotation: Bool { orientation != .up }

    /// The screen's pixels per point as its frames tell it, for the broadcast extension, which has no screen to ask
    /// (`UITraitCollection.current.displayScale` is 0 outside a window scene, issue 35 defect 7).
    ///
    /// Every device iOS 26 runs on is 2 or 3: 3 on the iPhones with a long screen at least 1000 pixels wide (iPhone
    /// 12 mini to 17 Pro Max, whose native 2.88 is within 4 %), 2 on the iPhone SE and 11 (750 and 828 pixels wide,
    /// 16:9 and longer) and on every iPad (3:2 or squarer, however wide). A device the rule misjudges gets an
    /// overlay inset of 16 or 36 pt instead of 24, not a broken frame.
    public var estimatedScreenScale: Double {
        let short = min(screen.width, screen.height)
        let long = max(screen.width, screen.height)
        let isPhone = long * 10 >= short * 17
        return isPhone && short >= 1000 ? 3 : 2
    }

    /// Pixels per point of the encoded frame, for the overlay's 24 pt inset: the screen's scale times the encode
    /// width over the screen width.
    /// - Parameter screenScale: the screen's pixels per point.
    public func displayScale(screenScale: Double) -> Double {
        screenScale * Double(size.width) / Double(screen.width)
    }
}
