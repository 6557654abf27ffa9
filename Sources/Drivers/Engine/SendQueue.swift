import FLV

/// The bounded queue of FLV tags waiting for one output's connection, measured in milliseconds of media.
///
/// When the network is slower than the bitrate the queue grows; it then drops by policy, in the spirit of OBS's
/// `drop_frames` (700 ms / 900 ms thresholds), video first and audio last:
/// - above ``Policy/dropNonKeyframesAfterMilliseconds``, queued non-keyframe video is dropped, and so is later
///   non-keyframe video until the next keyframe (the frames that referenced the dropped ones cannot be decoded);
///   audio and keyframes stay;
/// - above ``Policy/dropVideoAfterMilliseconds`` even then, all queued video goes (keyframes too, except one that
///   just arrived) and video resumes at the next keyframe; audio stays, so the sound goes on through a picture gap;
/// - above ``Policy/hopelessAfterMilliseconds`` the link does not even carry the audio: every queued media tag goes,
///   and media restarts at the next keyframe (``EnqueueResult/needsKeyframe`` asks the encoder for one at once).
///
/// Sequence headers and metadata are never dropped. A pure value: no clock, no I/O; the timestamps are the media's.
public struct SendQueue: Sendable {
    /// The drop thresholds.
    public struct Policy: Sendable, Hashable {
        /// Queued media span above which non-keyframe video is dropped (OBS: 700 ms).
        public var dropNonKeyframesAfterMilliseconds: Int64
        /// Queued media span, after dropping non-keyframes, above which all video is dropped (OBS: 900 ms).
        public var dropVideoAfterMilliseconds: Int64
        /// Queued media span, with no video left, above which everything queued is dropped (3 s: the sockets'
        /// buffers ahead of the queue drain first, so audio may pile up for a while on a link that carries it).
        public var hopelessAfterMilliseconds: Int64

        /// For a local recording: the disk keeps up, so only a stalled writer (seconds) drops anything.
        public static let recording = Policy(dropNonKeyframesAfterMilliseconds: 5000, dropVideoAfterMilliseconds: 7500,
                                             hopelessAfterMilliseconds: 10_000)

        /// Creates a policy; each threshold is kept at or above the one before.
        /// - Parameters:
        ///   - dropNonKeyframesAfterMilliseconds: the non-keyframe threshold (default 700).
        ///   - dropVideoAfterMilliseconds: the all-video threshold (default 900).
        ///   - hopelessAfterMilliseconds: the flush threshold (default 3000).
        public init(dropNonKeyframesAfterMilliseconds: Int64 = 700, dropVideoAfterMilliseconds: Int64 = 900,
                    hopelessAfterMilliseconds: Int64 = 3000) {
            self.dropNonKeyframesAfterMilliseconds = dropNonKeyframesAfterMilliseconds
            self.dropVideoAfterMilliseconds = max(dropVideoAfterMilliseconds, dropNonKeyframesAfterMilliseconds)
            self.hopelessAfterMilliseconds = max(hopelessAfterMilliseconds, self.dropVideoAfterMilliseconds)
        }
    }

    /// What a tag is, for the drop policy.
    public enum Kind: Sendable, Hashable {
        /// Metadata or a sequence header: never dropped.
        case header
        /// An AAC frame.
        case audio
        /// A video frame; keyframes are where a decoder can start.
        case video(isKeyframe: Bool)

        /// The kind of an FLV tag, from its type and first body bytes.
        public init(of tag: FLVTag) {
            if tag.type == .scriptData || tag.isSequenceHeader {
                self = .header
            } else if tag.type == .audio {
                self = .audio
            } else {
                self = .video(isKeyframe: tag.isVideoKeyFrame)
            }
        }
    }

    /// What happened to the tag just enqueued and to the queue.
    public struct EnqueueResult: Sendable, Hashable {
        /// Whether the tag itself was kept.
        public var accepted: Bool
        /// Video frames dropped by this call (the tag included, if it was a dropped video frame).
        public var droppedVideoFrames: Int
        /// Audio frames dropped by this call.
        public var droppedAudioFrames: Int
        /// Whether all media now waits for a keyframe (flushed or restarting), so the encoder should make one now.
        public var needsKeyframe: Bool
    }

    /// Running counts of what the queue did.
    public struct Statistics: Sendable, Hashable {
        /// Tags added to the queue (some may be dropped later).
        public var enqueued = 0
        /// Video frames dropped (non-keyframes and, past the video threshold, keyframes).
        public var droppedVideoFrames = 0
        /// Keyframes among ``droppedVideoFrames``.
        public var droppedKeyframes = 0
        /// Audio frames dropped (only when hopeless or while restarting at a keyframe).
        public var droppedAudioFrames = 0
        /// Times all queued video was dropped (audio kept).
        public var videoFlushes = 0
        /// Times the queue was hopeless and flushed.
        public var flushes = 0
        /// Creates zeroed counters.
        public init() {}
    }

    private struct Entry: Sendable {
        var tag: FLVTag
        var kind: Kind
    }

    /// Whether incoming media is being held back until a keyframe.
    private enum Gate: Sendable, Hashable {
        /// Everything flows.
        case open
        /// Non-keyframe video is dropped until a keyframe; audio flows.
        case videoWaitsForKeyframe
        /// All media is dropped until a keyframe, which then starts the stream (a fresh connection).
        case mediaWaitsForKeyframe
    }

    /// The drop thresholds.
    public let policy: Policy
    /// Counters since creation.
    public private(set) var statistics = Statistics()
    private var entries: [Entry] = []
    private var head = 0
    private var gate: Gate
    /// Bytes of tag bodies queued.
    public private(set) var byteCount = 0

    /// Creates an empty queue.
    /// - Parameters:
    ///   - policy: the drop thresholds.
    ///   - startsAtKeyframe: whether the first media must be a keyframe (true for a new connection).
    public init(policy: Policy = Policy(), startsAtKeyframe: Bool = true) {
        self.policy = policy
        self.gate = startsAtKeyframe ? .mediaWaitsForKeyframe : .open
    }

    /// Tags waiting.
    public var count: Int { entries.count - head }

    /// Whether nothing waits.
    public var isEmpty: Bool { count == 0 }

    /// Whether the queue holds back media until the next keyframe.
    public var isWaitingForKeyframe: Bool { gate != .open }

    /// The media span queued: newest minus oldest audio/video timestamp, in milliseconds (0 for fewer than two).
    public var durationMilliseconds: Int64 {
        var oldest: UInt32?
        var newest: UInt32?
        for index in head..<entries.count where entries[index].kind != .header {
            let timestamp = entries[index].tag.timestamp
            if oldest == nil { oldest = timestamp }
            newest = timestamp
        }
        guard let oldest, let newest else { return 0 }
        // Wrapping difference: a 32-bit timestamp wrap (after ~49.7 days) must not trap.
        let span = newest &- oldest
        return span > UInt32.max / 2 ? 0 : Int64(span)
    }

    /// Adds a tag at the back, then applies the drop policy.
    /// - Parameter tag: the tag; its timestamp is the media time in milliseconds.
    /// - Returns: what was kept and dropped.
    @discardableResult
    public mutating func enqueue(_ tag: FLVTag) -> EnqueueResult {
        let kind = Kind(of: tag)
        var result = EnqueueResult(accepted: true, droppedVideoFrames: 0, droppedAudioFrames: 0, needsKeyframe: false)
        switch (kind, gate) {
        case (.header, _):
            break
        case (.video(isKeyframe: true), _):
            gate = .open
        case (.video(isKeyframe: false), .videoWaitsForKeyframe), (.video(isKeyframe: false), .mediaWaitsForKeyframe):
            result.accepted = false
            result.droppedVideoFrames = 1
        case (.audio, .mediaWaitsForKeyframe):
            result.accepted = false
            result.droppedAudioFrames = 1
        case (.audio, .open), (.audio, .videoWaitsForKeyframe), (.video(isKeyframe: false), .open):
            break
        }
        if result.accepted {
            entries.append(Entry(tag: tag, kind: kind))
            byteCount += tag.body.count
            statistics.enqueued += 1
        }
        applyPolicy(&result, newest: kind)
        result.needsKeyframe = gate == .mediaWaitsForKeyframe
        statistics.droppedVideoFrames += result.droppedVideoFrames
        statistics.droppedAudioFrames += result.droppedAudioFrames
        return result
    }

    /// Removes and returns the tag at the front, or nil when the queue is empty.
    public mutating func dequeue() -> FLVTag? {
        guard head < entries.count else { return nil }
        let entry = entries[head]
        head += 1
        byteCount -= entry.tag.body.count
        compactIfNeeded()
        return entry.tag
    }

    /// Drops every queued media tag and holds back all media until the next keyframe: what a fresh connection
    /// needs after a reconnect (it re-sends the headers itself).
    /// - Returns: how many media tags were dropped.
    @discardableResult
    public mutating func restartAtKeyframe() -> Int {
        let dropped = removeAll { _, kind in kind != .header }
        gate = .mediaWaitsForKeyframe
        return dropped.video + dropped.audio
    }

    /// A video frame already taken from the queue could not be sent (too large for the connection): the
    /// non-keyframes queued after it reference it, so they are dropped up to the next queued keyframe; with no
    /// keyframe queued, later non-keyframes are held back until one comes (audio flows).
    /// - Returns: how many video frames were dropped (the unsent one not included).
    @discardableResult
    public mutating func skipVideoUntilKeyframe() -> Int {
        let nextKeyframe = entries[head...].firstIndex { $0.kind == .video(isKeyframe: true) }
        let dropped = removeAll { index, kind in
            kind == .video(isKeyframe: false) && nextKeyframe.map { index < $0 } ?? true
        }
        if nextKeyframe == nil && gate == .open { gate = .videoWaitsForKeyframe }
        statistics.droppedVideoFrames += dropped.video
        return dropped.video
    }

    private mutating func applyPolicy(_ result: inout EnqueueResult, newest kind: Kind) {
        guard durationMilliseconds > policy.dropNonKeyframesAfterMilliseconds else { return }
        let nonKey = removeAll { _, kind in kind == .video(isKeyframe: false) }
        result.droppedVideoFrames += nonKey.video
        if result.accepted, kind == .video(isKeyframe: false) { result.accepted = false }
        // A keyframe that just arrived is a fresh start for video and stays through the next two steps.
        let keepNewest = result.accepted && kind == .video(isKeyframe: true)
        let lastIndex = entries.count - 1
        if gate == .open && !keepNewest { gate = .videoWaitsForKeyframe }
        guard durationMilliseconds > policy.dropVideoAfterMilliseconds else { return }
        let video = removeAll { index, kind in
            kind != .header && kind != .audio && !(keepNewest && index == lastIndex)
        }
        if video.video > 0 {
            result.droppedVideoFrames += video.video
            statistics.droppedKeyframes += video.keyframes
            statistics.videoFlushes += 1
        }
        guard durationMilliseconds > policy.hopelessAfterMilliseconds else { return }
        // Hopeless: not even the audio gets through. Everything older goes.
        let newestIndex = entries.count - 1
        let media = removeAll { index, kind in kind != .header && !(keepNewest && index == newestIndex) }
        result.droppedVideoFrames += media.video
        result.droppedAudioFrames += media.audio
        statistics.droppedKeyframes += media.keyframes
        statistics.flushes += 1
        if keepNewest {
            gate = .open
        } else {
            result.accepted = false
            gate = .mediaWaitsForKeyframe
        }
    }

    private mutating func removeAll(
        where shouldRemove: (_ index: Int, _ kind: Kind) -> Bool
    ) -> (video: Int, audio: Int, keyframes: Int) {
        var video = 0
        var audio = 0
        var keyframes = 0
        var kept: [Entry] = []
        kept.reserveCapacity(count)
        for index in head..<entries.count {
            let entry = entries[index]
            if shouldRemove(index, entry.kind) {
                switch entry.kind {
                case .video(let isKeyframe):
                    video += 1
                    if isKeyframe { keyframes += 1 }
                case .audio: audio += 1
                case .header: break
                }
                byteCount -= entry.tag.body.count
            } else {
                kept.append(entry)
            }
        }
        entries = kept
        head = 0
        return (video, audio, keyframes)
    }

    /// Reclaims the consumed front of the array once it dominates, keeping `dequeue` amortised O(1).
    private mutating func compactIfNeeded() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
