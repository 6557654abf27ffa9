import Media

/// Where the PiP camera's frames come from: the test pattern, a Y4M file, later a real device.
public protocol CameraSource: AnyObject {
    /// The source's frame pool counters.
    var statistics: PoolStatistics { get }
    /// The frame for session frame `index` at `pts` (nanoseconds on the session clock), or nil when there is no new
    /// one (the compositor keeps showing the last).
    func frame(index: Int, pts: Int64) -> VideoFrame?
}
