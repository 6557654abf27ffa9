import Engine
import Media
import StreamCore

/// Where the broadcast's picture comes from: the test pattern or a captured screen.
///
/// The media loop calls ``frame(index:pts:)`` once per session frame, on its own thread; the source is used from
/// that thread only after creation.
public protocol ScreenSource: AnyObject {
    /// The picture's size in pixels; the encode size is locked from it.
    var size: PixelSize { get }
    /// The source's frame pool counters.
    var statistics: PoolStatistics { get }
    /// The picture for session frame `index` at `pts` (nanoseconds on the session clock), or nil when no frame is
    /// available this tick (every pooled frame still in use).
    /// - Throws: `BroadcastError` (`.captureFailed`) when the capture broke.
    func frame(index: Int, pts: Int64) throws(BroadcastError) -> VideoFrame?
}
