import Media

/// The "microphone" of a broadcast that runs on any machine: a sine tone (440 Hz at half scale by default), 48 kHz
/// stereo Float32, in buffers of one AAC frame from a bounded pool.
public final class TestToneSource: AudioSource {
    /// The tone.
    public let generator: ToneGenerator
    /// Sample frames per buffer.
    public let samplesPerBuffer: Int
    private let pool: PCMBufferPool

    /// Creates a source.
    /// - Parameters:
    ///   - frequency: tone frequency in hertz (default 440).
    ///   - sampleRate: samples per second (default 48 000).
    ///   - samplesPerBuffer: sample frames per buffer (default 1024, one AAC frame).
    public init(frequency: Double = 440, sampleRate: Int = 48_000, samplesPerBuffer: Int = 1024) {
        let format = PCMFormat(sampleFormat: .float32, sampleRate: sampleRate, channels: 2)
        generator = ToneGenerator(frequency: frequency, amplitude: 0.5, format: format)
        self.samplesPerBuffer = samplesPerBuffer
        pool = PCMBufferPool(format: format, frameCount: samplesPerBuffer, maxCount: 4)
    }

    /// The pool's counters.
    public var statistics: PoolStatistics { pool.statistics }

    /// Buffer `index` (samples `index × samplesPerBuffer` on), stamped in nanoseconds from `startPTS`.
    public func buffer(index: Int, startPTS: Int64 = 0) -> PCMBuffer? {
        guard var buffer = pool.makeBuffer(pts: 0) else { return nil }
        generator.render(bufferIndex: index, startPTS: startPTS, into: &buffer)
        return buffer
    }

    /// Buffer `index` of the tone (never silence).
    public func nextBuffer(index: Int) -> PCMBuffer? { buffer(index: index) }
}
