/// A snapshot of a running broadcast: the encode and every output together, for a status line and for tests.
public struct BroadcastStatistics: Sendable, Hashable {
    /// Seconds since the broadcast started.
    public var elapsedSeconds: Double = 0
    /// Video bits produced by the encoder over the last interval, in kbit/s.
    public var videoKbps: Int = 0
    /// Audio bits produced over the last interval, in kbit/s.
    public var audioKbps: Int = 0
    /// Frames encoded per second over the last interval.
    public var framesPerSecond: Double = 0
    /// Frames encoded since the start.
    public var framesEncoded = 0
    /// Audio frames (AAC packets) encoded since the start.
    public var audioFramesEncoded = 0
    /// Average time to make one video frame (render, convert, composite, encode) over the last interval, in
    /// milliseconds; near or above the frame interval (33 ms at 30 fps) the machine cannot keep up and frames are
    /// skipped.
    public var frameWorkMilliseconds: Double = 0
    /// Frames skipped because the pipeline fell behind real time.
    public var framesSkippedLate = 0
    /// Video frames dropped by an output's send queue (the most of any output).
    public var framesDroppedByQueue = 0
    /// Keyframes among ``framesDroppedByQueue`` (the queue drops them only when it is hopeless).
    public var droppedKeyframesByQueue = 0
    /// Audio frames dropped by an output's send queue (the most of any output).
    public var audioFramesDroppedByQueue = 0
    /// The largest queue span among the outputs, in milliseconds of media.
    public var queueMilliseconds: Int64 = 0
    /// Reconnects made, summed over outputs.
    public var reconnects = 0
    /// Live connections lost, summed over outputs.
    public var outages = 0
    /// Time off the air so far, the ongoing outage included (the most of any output), in seconds.
    public var offlineSeconds: Double = 0
    /// The longest outage, the ongoing one included (the most of any output), in seconds: from when the link
    /// stopped carrying bytes to being live again (or to now).
    public var longestOutageSeconds: Double = 0
    /// The encoder's current video bitrate (follows adaptive bitrate), in kbit/s.
    public var currentVideoBitrateKbps = 0
    /// Capture-to-socket latency of video frames, median, in milliseconds (the slowest output's), once known.
    public var latencyP50Milliseconds: Int?
    /// Capture-to-socket latency of video frames, 99th percentile, in milliseconds (the slowest output's).
    public var latencyP99Milliseconds: Int?

    /// Creates zeroed statistics.
    public init() {}

    /// All dropped or skipped video frames.
    public var droppedFrames: Int { framesSkippedLate + framesDroppedByQueue }
}
