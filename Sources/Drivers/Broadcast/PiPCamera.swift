#if os(Linux)
import Capture
import Engine
import Media

/// The PiP camera as the media loop sees it: the test pattern drawn in step with the session's frames, or any other
/// camera read on its own thread by a ``Capture/CameraFeed`` (the loop takes the newest frame and never waits).
enum PiPCamera {
    case pattern(TestCameraSource)
    case feed(CameraFeed)

    init(_ camera: BroadcastConfiguration.Camera) throws(BroadcastError) {
        let open: @Sendable () throws(CaptureError) -> any CameraSource
        switch camera {
        case .testPattern:
            self = .pattern(TestCameraSource())
            return
        case .y4m(let path):
            open = { () throws(CaptureError) -> any CameraSource in try Y4MCameraSource(path: path) }
        case .source(let factory):
            open = factory
        }
        do {
            self = .feed(try CameraFeed(open: open))
        } catch {
            throw BroadcastError(.invalidConfiguration, "cannot open the camera: \(error.message)")
        }
    }

    var statistics: PoolStatistics {
        switch self {
        case .pattern(let source): source.statistics
        case .feed(let feed): feed.poolStatistics
        }
    }

    /// The camera's frame for session frame `index`, stamped `pts`; nil when there is no new one.
    func frame(index: Int, pts: Int64) -> VideoFrame? {
        switch self {
        case .pattern(let source):
            return source.frame(index: index, pts: pts)
        case .feed(let feed):
            guard var frame = feed.latestFrame() else { return nil }
            frame.pts = pts
            return frame
        }
    }

    /// Stops a feed's reading thread.
    func stop() {
        if case .feed(let feed) = self { feed.stop() }
    }
}
#endif
