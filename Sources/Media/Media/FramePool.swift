/// A bounded pool of video frames of one layout, so the steady state allocates no pixel memory.
///
/// ``makeFrame(pts:)`` checks out a buffer; it goes back to the pool when the last copy of the returned
/// ``VideoFrame`` is released. When `maxCount` frames are alive, ``makeFrame(pts:)`` returns nil: the caller drops
/// that frame (and ``PoolStatistics/exhaustions`` counts it) instead of growing memory, which matters inside the
/// iOS broadcast extension's ~50 MB budget. Thread-safe: frames may be released on any thread.
public final class FramePool: Sendable {
    /// The layout of every frame from this pool.
    public let layout: FrameLayout
    private let storage: StoragePool

    /// Creates an empty pool; buffers are allocated on demand, up to `maxCount`.
    /// - Parameters:
    ///   - layout: the format and size of the frames.
    ///   - maxCount: the most frames alive at once (at least 1).
    public init(layout: FrameLayout, maxCount: Int) {
        self.layout = layout
        storage = StoragePool(byteCount: layout.byteCount, maxCount: maxCount)
    }

    /// Creates an empty pool of `format` frames at `width` × `height`.
    public convenience init(format: PixelFormat, width: Int, height: Int, maxCount: Int) {
        self.init(layout: FrameLayout(format: format, width: width, height: height), maxCount: maxCount)
    }

    /// The most frames alive at once.
    public var maxCount: Int { storage.maxCount }

    /// Allocation, reuse and occupancy counters.
    public var statistics: PoolStatistics { storage.statistics }

    /// Checks out a frame. Its pixels hold whatever the previous user left (zeros when freshly allocated).
    /// - Parameter pts: the presentation timestamp, in nanoseconds on a monotonic clock.
    /// - Returns: the frame, or nil when `maxCount` frames are in use (drop this frame).
    public func makeFrame(pts: Int64) -> VideoFrame? {
        guard let buffer = storage.checkOut() else { return nil }
        return VideoFrame(layout: layout, pts: pts, storage: buffer)
    }
}
