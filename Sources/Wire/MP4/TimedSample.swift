/// A sample on its track's decode timeline, as ``FLVDemuxer`` makes it from a tag.
public struct TimedSample: Sendable, Hashable {
    /// Which track a sample belongs to.
    public enum Track: Sendable, Hashable {
        /// H.264, 90 kHz ticks.
        case video
        /// AAC, one tick per audio sample.
        case audio
    }

    /// The sample's track.
    public var track: Track
    /// The decode time in track ticks (may be negative only if the publisher's timestamps are).
    public var decodeTime: Int64
    /// The sample; its duration is final for audio and an estimate for video (the previous frame interval), since
    /// a frame's length is known only when the next one arrives.
    public var sample: FragmentSample

    /// Creates a timed sample.
    public init(track: Track, decodeTime: Int64, sample: FragmentSample) {
        self.track = track
        self.decodeTime = decodeTime
        self.sample = sample
    }
}
