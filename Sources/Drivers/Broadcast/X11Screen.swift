#if os(Linux)
import Capture
import Engine
import Media
import StreamCore

/// The X11 screen (or a region of it) as the broadcast's picture: ``Capture/X11ScreenSource`` grabbed once per
/// session frame.
public final class X11Screen: ScreenSource {
    /// The capture.
    public let source: X11ScreenSource

    /// Connects to the display.
    /// - Parameter options: display, region, cursor.
    /// - Throws: `BroadcastError` (`.invalidConfiguration`) when the display cannot be opened or the region does not
    ///   fit.
    public init(options: X11ScreenSource.Options) throws(BroadcastError) {
        do {
            source = try X11ScreenSource(options: options)
        } catch {
            throw BroadcastError(.invalidConfiguration, "cannot capture the screen: \(error.message)")
        }
    }

    /// The captured region's size.
    public var size: PixelSize { PixelSize(width: source.width, height: source.height) }

    /// The grab's frame pool counters.
    public var statistics: PoolStatistics { source.poolStatistics }

    /// Grabs the screen now, stamped `pts`.
    /// - Throws: `BroadcastError` (`.captureFailed`) when the X server refused the grab or went away.
    public func frame(index: Int, pts: Int64) throws(BroadcastError) -> VideoFrame? {
        do {
            return try source.grab(pts: pts)
        } catch {
            throw BroadcastError(.captureFailed, "the screen capture failed: \(error.message)")
        }
    }
}
#endif
