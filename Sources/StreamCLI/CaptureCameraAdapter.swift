import Broadcast
import Capture
import Media

/// Feeds a Linux camera (V4L2 device or Y4M file/pipe, through a ``Capture/CameraFeed``) to the broadcast's
/// picture-in-picture as a `Broadcast.CameraSource`.
///
/// The feed reads on its own thread; the media loop only takes the newest frame, restamped on the session clock.
final class CaptureCameraAdapter: Broadcast.CameraSource {
    /// The running feed.
    let feed: CameraFeed

    /// Wraps a running feed.
    init(feed: CameraFeed) { self.feed = feed }

    /// Opens `spec`: `y4m:PATH` for a YUV4MPEG2 file or pipe, else a V4L2 device path (e.g. `/dev/video0`).
    /// - Throws: `CaptureError` when the camera cannot be opened.
    convenience init(spec: String, width: Int = 1280, height: Int = 720, frameRate: Double = 30) throws(CaptureError) {
        let feed: CameraFeed
        if spec.hasPrefix("y4m:") {
            let path = String(spec.dropFirst(4))
            feed = try CameraFeed { () throws(CaptureError) -> any Capture.CameraSource in
                try Capture.Y4MCameraSource(path: path)
            }
        } else {
            feed = try CameraFeed { () throws(CaptureError) -> any Capture.CameraSource in
                try V4L2CameraSource(path: spec, width: width, height: height, frameRate: frameRate)
            }
        }
        self.init(feed: feed)
    }

    deinit { feed.stop() }

    /// The camera's frame pool counters.
    var statistics: PoolStatistics { feed.poolStatistics }

    /// The newest camera frame, stamped `pts`; nil when none arrived since the last call (the compositor keeps
    /// showing the previous one).
    func frame(index: Int, pts: Int64) -> VideoFrame? {
        guard var frame = feed.latestFrame() else { return nil }
        frame.pts = pts
        return frame
    }
}
