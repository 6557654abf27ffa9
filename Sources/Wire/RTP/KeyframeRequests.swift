/// When a receiver asks its sender for a keyframe with a Picture Loss Indication (RFC 4585 §6.3.1), without I/O.
///
/// While the receiver drops frames for want of a keyframe (after a loss, see ``H264FrameAssembler``), it asks at
/// most once per ``interval``: often enough that a lost request or keyframe is soon repeated, rarely enough that a
/// sender is not made to send keyframe after keyframe while the first is still on its way (a 1 MB keyframe takes
/// 400 ms at 20 Mbit/s). A WebRTC sender otherwise sends a keyframe only when asked, so without this a single lost
/// packet would stop the picture for good.
///
/// With a ``maximumKeyframeInterval`` it also asks when no keyframe has come for that long: a segmenter (LL-HLS)
/// cuts segments at keyframes, and a WebRTC sender's own keyframe interval is long (aiortc's libx264: 8.3 s;
/// Chrome's H.264: 3000 frames), which would make the first segment, and so the first playlist, that late.
public struct KeyframeRequests: Sendable {
    /// The default least time between two requests.
    public static let defaultInterval: Duration = .milliseconds(500)

    /// The least time between two requests.
    public let interval: Duration
    /// Ask when no keyframe has come for this long; nil: only after a loss.
    public let maximumKeyframeInterval: Duration?
    private var last: Duration?
    /// Requests decided so far.
    public private(set) var sent = 0

    /// Creates the decision with nothing asked yet.
    public init(interval: Duration = defaultInterval, maximumKeyframeInterval: Duration? = nil) {
        self.interval = interval
        self.maximumKeyframeInterval = maximumKeyframeInterval
    }

    /// Whether to send a request now.
    /// - Parameters:
    ///   - waiting: whether frames are being dropped until a keyframe.
    ///   - lastKeyframe: when the last keyframe was passed on; nil before the first.
    ///   - now: the current time.
    public mutating func shouldRequest(waiting: Bool, lastKeyframe: Duration? = nil, now: Duration) -> Bool {
        var overdue = false
        if let lastKeyframe, let maximumKeyframeInterval { overdue = now - lastKeyframe >= maximumKeyframeInterval }
        guard waiting || overdue else { return false }
        if let last, now - last < interval { return false }
        last = now
        sent += 1
        return true
    }
}
