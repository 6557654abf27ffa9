/// One sample of a movie fragment: an access unit of video (length-prefixed NAL units) or one raw AAC frame, with
/// its timing in the track's timescale.
public struct FragmentSample: Sendable, Hashable {
    /// How long the sample lasts, in track ticks.
    public var duration: UInt32
    /// Presentation time minus decode time, in track ticks (0 for audio; B-frames make it vary for video).
    public var compositionOffset: Int32
    /// Whether a decoder can start at this sample.
    public var isSync: Bool
    /// The sample's bytes as they go into `mdat`.
    public var data: [UInt8]

    /// Creates a sample.
    public init(duration: UInt32, compositionOffset: Int32 = 0, isSync: Bool, data: [UInt8]) {
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.isSync = isSync
        self.data = data
    }

    /// The flags written for it.
    public var flags: SampleFlags { isSync ? .sync : .nonSync }
}
