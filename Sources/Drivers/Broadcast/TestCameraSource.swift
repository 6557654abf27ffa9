import Capture
import Media

/// The "camera" of a broadcast that runs on any machine: Media's `CameraPattern` (green, a blue band on the left so
/// mirroring shows, a sliding white stripe), 640×480 NV12 like a phone camera, from a bounded pool.
public final class TestCameraSource: CameraSource {
    /// The pattern drawn.
    public let pattern: CameraPattern
    private let pool: FramePool
    private var nextIndex = 0

    /// Creates a source.
    /// - Parameters:
    ///   - width: frame width (default 640).
    ///   - height: frame height (default 480).
    public init(width: Int = 640, height: Int = 480) {
        pattern = CameraPattern(width: width, height: height, format: .nv12)
        pool = FramePool(format: .nv12, width: width, height: height, maxCount: 3)
    }

    /// The pool's counters.
    public var statistics: PoolStatistics { pool.statistics }

    /// Frame `index`, stamped `pts` (nanoseconds on the session clock); nil when the pool is exhausted.
    public func frame(index: Int, pts: Int64) -> VideoFrame? {
        guard var frame = pool.makeFrame(pts: pts) else { return nil }
        pattern.render(frameIndex: index, into: &frame)
        return frame
    }

    // MARK: CameraSource

    /// Width of the frames in pixels.
    public var width: Int { pattern.width }
    /// Height of the frames in pixels.
    public var height: Int { pattern.height }
    /// 30 frames per second.
    public var frameRate: Double { 30 }
    /// False: drawing is instant, so a reader paces it.
    public var pacesItself: Bool { false }
    /// The pool's counters.
    public var poolStatistics: PoolStatistics { pool.statistics }

    /// The next frame of the pattern (never fails).
    public func nextFrame(pts: Int64) throws(CaptureError) -> CameraRead {
        defer { nextIndex += 1 }
        return frame(index: nextIndex, pts: pts).map { .frame($0) } ?? .dropped
    }
}
