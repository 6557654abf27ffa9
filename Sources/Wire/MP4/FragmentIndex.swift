/// Where a fragmented MP4 file's init segment and movie fragments are, and how long each fragment lasts: what an
/// HLS VOD playlist over the file needs (one `EXT-X-BYTERANGE` segment per fragment). Made by ``FragmentScanner``.
public struct FragmentIndex: Sendable, Equatable {
    /// One movie fragment: its `moof` and the `mdat` after it.
    public struct Fragment: Sendable, Equatable {
        /// The bytes of the `moof` and its `mdat`, in the file.
        public var range: Range<Int>
        /// The decode time of its first sample on the timing track (`tfdt`), in ``FragmentIndex/timescale`` ticks.
        public var decodeTime: UInt64
        /// The sum of its sample durations on the timing track, in ``FragmentIndex/timescale`` ticks.
        public var duration: UInt64
        /// Whether the timing track's first sample is a sync sample (it decodes on its own: a keyframe).
        public var startsWithSyncSample: Bool

        /// Creates a fragment's entry.
        public init(range: Range<Int>, decodeTime: UInt64, duration: UInt64, startsWithSyncSample: Bool) {
            self.range = range
            self.decodeTime = decodeTime
            self.duration = duration
            self.startsWithSyncSample = startsWithSyncSample
        }
    }

    /// The `ftyp` and `moov` (everything before the first fragment): the HLS Media Initialization Section.
    public var initSegment: Range<Int>
    /// The track whose times the fragments give: the video track if there is one, else the first track.
    public var timingTrackID: UInt32
    /// The timing track's ticks per second (its `mdhd`).
    public var timescale: UInt32
    /// Whether the timing track is video.
    public var hasVideo: Bool
    /// The fragments, in file order.
    public var fragments: [Fragment]

    /// Creates an index.
    public init(initSegment: Range<Int>, timingTrackID: UInt32, timescale: UInt32, hasVideo: Bool,
                fragments: [Fragment]) {
        self.initSegment = initSegment
        self.timingTrackID = timingTrackID
        self.timescale = timescale
        self.hasVideo = hasVideo
        self.fragments = fragments
    }

    /// The sum of the fragments' durations, in ``timescale`` ticks.
    public var duration: UInt64 { fragments.reduce(0) { $0 &+ $1.duration } }

    /// The sum of the fragments' durations, in seconds.
    public var durationSeconds: Double { timescale == 0 ? 0 : Double(duration) / Double(timescale) }
}
