import Media
import StreamCore

/// The "screen" of a broadcast that runs on any machine: Media's moving `ScreenPattern` with a frame counter, in
/// BGRA frames from a small bounded pool (the steady state allocates nothing).
public final class TestScreenSource {
    /// The pattern drawn.
    public let pattern: ScreenPattern
    private let pool: FramePool

    /// Creates a source of `size` (e.g. 1920×1080, or 1179×2556 for a portrait phone).
    /// - Parameter size: at least 64×64.
    public init(size: PixelSize) {
        pattern = ScreenPattern(width: size.width, height: size.height)
        pool = FramePool(format: .bgra, width: size.width, height: size.height, maxCount: 3)
    }

    /// The pool's counters.
    public var statistics: PoolStatistics { pool.statistics }

    /// Frame `index`, stamped `pts` (nanoseconds on the session clock); nil when every pooled frame is still in use.
    public func frame(index: Int, pts: Int64) -> VideoFrame? {
        guard var frame = pool.makeFrame(pts: pts) else { return nil }
        pattern.render(frameIndex: index, into: &frame)
        return frame
    }
}

