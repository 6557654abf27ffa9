/// One compressed AAC frame (raw, without ADTS header) as produced by an `AudioEncoder`.
public struct EncodedAudioPacket: Sendable, Hashable {
    /// The raw AAC frame (`raw_data_block`), as carried in an FLV AAC raw tag.
    public var data: [UInt8]
    /// Presentation time in samples since the first input sample. The first packet starts before zero by the
    /// encoder's priming delay (see `AudioEncoder.primingSamples`), because decoders drop those samples.
    public var pts: Int64
    /// Number of samples the frame decodes to (1024 for AAC-LC, fewer for the last one).
    public var duration: Int64
    /// Sample rate the timestamps count in.
    public var sampleRate: Int

    /// Creates a packet.
    /// - Parameters:
    ///   - data: raw AAC bytes.
    ///   - pts: presentation time in samples.
    ///   - duration: duration in samples.
    ///   - sampleRate: samples per second.
    public init(data: [UInt8], pts: Int64, duration: Int64, sampleRate: Int) {
        self.data = data
        self.pts = pts
        self.duration = duration
        self.sampleRate = sampleRate
    }

    /// Presentation time in milliseconds, rounded down (negative for the priming frame).
    public var ptsMilliseconds: Int64 {
        let scaled = pts * 1000
        let rate = Int64(sampleRate)
        return scaled >= 0 ? scaled / rate : -((-scaled + rate - 1) / rate)
    }
}
