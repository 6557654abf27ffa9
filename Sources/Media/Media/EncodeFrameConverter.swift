#if canImport(CYUV)
/// Turns any captured frame (BGRA screen, NV12 or I420 camera, any size) into an I420 frame at the locked encode
/// size, in frames from its own bounded pool.
///
/// BGRA of another size is scaled in BGRA first and then converted, so colour conversion runs at the (smaller)
/// encode size; NV12 of another size is converted first and then scaled. The one intermediate frame is allocated
/// when the source size is first seen and reused after that. Use from one thread or actor at a time.
public final class EncodeFrameConverter {
    /// The layout of every output frame (I420 at the encode size).
    public let outputLayout: FrameLayout
    /// The scaling filter.
    public let filter: ScaleFilter
    private let pool: FramePool
    private var intermediate: VideoFrame?

    /// Creates a converter to I420 at `width` × `height`.
    /// - Parameters:
    ///   - width: encode width in pixels (even).
    ///   - height: encode height in pixels (even).
    ///   - filter: the scaling filter.
    ///   - maxFrames: output frames alive at once (in the encoder's queue) before ``convert(_:)`` drops.
    public init(width: Int, height: Int, filter: ScaleFilter = .bilinear, maxFrames: Int = 4) {
        outputLayout = FrameLayout(format: .i420, width: width, height: height)
        self.filter = filter
        pool = FramePool(layout: outputLayout, maxCount: maxFrames)
    }

    /// Counters of the output pool.
    public var statistics: PoolStatistics { pool.statistics }
    /// Intermediate frames allocated; grows only when the source's size or format changes, never per frame.
    public private(set) var intermediateAllocations = 0

    /// Converts and scales `source` to I420 at the encode size, keeping its timestamp.
    /// - Returns: the frame, or nil when all output frames are still in use downstream (drop this frame).
    /// - Throws: ``MediaError`` if libyuv fails.
    public func convert(_ source: VideoFrame) throws(MediaError) -> VideoFrame? {
        guard var output = pool.makeFrame(pts: source.pts) else { return nil }
        let sameSize = source.width == outputLayout.width && source.height == outputLayout.height
        switch (source.format, sameSize) {
        case (.i420, _), (.bgra, true), (.nv12, true):
            try FrameConverter.convert(source, into: &output, filter: filter)
        case (.bgra, false):
            var scaled = takeIntermediate(.bgra, width: outputLayout.width, height: outputLayout.height)
            try FrameConverter.convert(source, into: &scaled, filter: filter)
            try FrameConverter.convert(scaled, into: &output, filter: filter)
            intermediate = consume scaled
        case (.nv12, false):
            var converted = takeIntermediate(.i420, width: source.width, height: source.height)
            try FrameConverter.convert(source, into: &converted, filter: filter)
            try FrameConverter.convert(converted, into: &output, filter: filter)
            intermediate = consume converted
        }
        return output
    }

    /// The intermediate frame for this shape, moved out so it is uniquely referenced while written.
    private func takeIntermediate(_ format: PixelFormat, width: Int, height: Int) -> VideoFrame {
        let layout = FrameLayout(format: format, width: width, height: height)
        if let frame = intermediate.take(), frame.layout == layout {
            return frame
        }
        intermediateAllocations += 1
        return VideoFrame(layout: layout)
    }
}
#endif
