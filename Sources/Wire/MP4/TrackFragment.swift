/// One track's run of samples in a movie fragment (a `traf`): where the run starts on the track's decode timeline
/// and its samples in decode order.
public struct TrackFragment: Sendable, Hashable {
    /// The track (``VideoTrack/trackID`` or ``AudioTrack/trackID``).
    public var trackID: UInt32
    /// The decode time of the first sample, in track ticks since the track's start (`tfdt`).
    public var baseDecodeTime: UInt64
    /// The samples, in decode order.
    public var samples: [FragmentSample]

    /// Creates a track fragment.
    public init(trackID: UInt32, baseDecodeTime: UInt64, samples: [FragmentSample]) {
        self.trackID = trackID
        self.baseDecodeTime = baseDecodeTime
        self.samples = samples
    }

    /// The sum of the sample durations, in track ticks.
    public var duration: UInt64 { samples.reduce(0) { $0 + UInt64($1.duration) } }
}

extension TrackFragment {
    /// A run made of timed samples of one track, in decode order.
    ///
    /// Inside a `trun` decode times are implicit (each sample starts where the one before ends, §8.8.8), so every
    /// sample but the last lasts until the next one's decode time; the last keeps its own (estimated) duration.
    /// - Parameters:
    ///   - trackID: the track's ID.
    ///   - timedSamples: the samples, in decode order, with non-decreasing decode times.
    /// - Returns: nil when there is no sample.
    public init?(trackID: UInt32, timedSamples: [TimedSample]) {
        guard let first = timedSamples.first else { return nil }
        var samples = timedSamples.map(\.sample)
        for index in samples.indices.dropLast() {
            let gap = timedSamples[index + 1].decodeTime - timedSamples[index].decodeTime
            samples[index].duration = UInt32(clamping: gap)
        }
        self.init(trackID: trackID, baseDecodeTime: UInt64(clamping: first.decodeTime), samples: samples)
    }
}
