/// The shape of interleaved PCM audio.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    /// How each sample is stored.
    public var sampleFormat: SampleFormat
    /// Sample frames per second (48 000 for broadcast audio).
    public var sampleRate: Int
    /// Interleaved channels per sample frame (2 = stereo, left first).
    public var channels: Int

    /// Describes interleaved PCM.
    /// - Precondition: `sampleRate` and `channels` are positive.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channels: Int) {
        precondition(sampleRate > 0 && channels > 0, "PCM needs a positive sample rate and channel count")
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes per sample frame (all channels of one instant).
    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }

    /// For example "f32 48000 Hz 2 ch".
    public var description: String { "\(sampleFormat) \(sampleRate) Hz \(channels) ch" }
}
