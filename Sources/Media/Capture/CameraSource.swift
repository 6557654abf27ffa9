import Media

/// What one attempt to read a camera frame produced.
public enum CameraRead: Sendable {
    /// A frame, in pooled memory.
    case frame(VideoFrame)
    /// A frame arrived but every pooled frame is still in use downstream, so it was dropped.
    case dropped
    /// The source ended (a pipe was closed); no more frames will come.
    case ended
}

/// A camera: a V4L2 device or a Y4M file or pipe standing in for one.
///
/// Reads block until the next frame is available; pacing is the device's (V4L2) or the caller's (Y4M).
/// Not thread-safe: use one source from one thread or actor.
public protocol CameraSource: AnyObject {
    /// Width of the frames in pixels.
    var width: Int { get }
    /// Height of the frames in pixels.
    var height: Int { get }
    /// Nominal frames per second.
    var frameRate: Double { get }
    /// Whether reads wait for the device's own clock (V4L2); otherwise the reader paces them at ``frameRate``.
    var pacesItself: Bool { get }
    /// The frame pool's counters (allocations, reuse, exhaustions).
    var poolStatistics: PoolStatistics { get }
    /// Reads the next frame.
    /// - Parameter pts: the timestamp to give the frame, in nanoseconds on a monotonic clock.
    /// - Throws: ``CaptureError`` when the device or file fails.
    func nextFrame(pts: Int64) throws(CaptureError) -> CameraRead
}
