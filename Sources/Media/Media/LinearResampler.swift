/// Interleaved Float32 audio from one sample rate to another by linear interpolation, in chunks of any size: what
/// turns a 44.1 kHz publish into the 48 kHz Opus needs (RFC 7587), where a voice or a tone is the material and a
/// sinc filter's cost is not worth it. Keeps the last input frame and the position between calls, so a stream cut
/// into chunks resamples as it would whole. Pure; not for mastering: frequencies near the lower rate's Nyquist alias.
public struct LinearResampler: Sendable {
    /// The input's rate, in Hz.
    public let inputRate: Int
    /// The output's rate, in Hz.
    public let outputRate: Int
    /// Interleaved channels, in and out.
    public let channels: Int
    /// The last input frame of the previous chunk (the left point of the first interpolation), nil before any.
    private var previous: [Float]?
    /// The next output frame's position, in input frames, from the first frame of the next chunk: in [-1, 0) while
    /// it falls between `previous` and that frame.
    private var position: Double = 0

    /// A resampler from `inputRate` to `outputRate` Hz (both positive) for `channels` interleaved channels.
    public init(inputRate: Int, outputRate: Int, channels: Int) {
        precondition(inputRate > 0 && outputRate > 0 && channels > 0, "a resampler needs positive rates and channels")
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    /// Resamples the next chunk of the stream.
    /// - Parameter samples: interleaved input, a whole number of frames.
    /// - Returns: interleaved output: about `frames × outputRate / inputRate` frames (the last is held back until
    ///   the input after it comes).
    public mutating func process(_ samples: [Float]) -> [Float] {
        guard inputRate != outputRate else { return samples }
        let frames = samples.count / channels
        guard frames > 0 else { return [] }
        let step = Double(inputRate) / Double(outputRate)
        var output: [Float] = []
        output.reserveCapacity(Int(Double(frames) / step) * channels + channels)
        // Input frame i of this chunk is at position i; `previous` is at -1 (the first chunk starts at frame 0).
        if previous == nil { position = 0 }
        func sample(_ frame: Int, _ channel: Int) -> Float {
            frame < 0 ? (previous?[channel] ?? samples[channel]) : samples[frame * channels + channel]
        }
        while position <= Double(frames - 1) {
            let left = Int(position.rounded(.down))
            let fraction = Float(position - Double(left))
            for channel in 0..<channels {
                let a = sample(left, channel)
                let b = left + 1 < frames ? sample(left + 1, channel) : a
                output.append(a + (b - a) * fraction)
            }
            position += step
        }
        // Where the next output frame falls, counted from the next chunk's first frame.
        position -= Double(frames)
        previous = Array(samples[((frames - 1) * channels)..<(frames * channels)])
        return output
    }
}
