#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A deterministic sine tone, the same on every channel, in interleaved PCM.
///
/// Sample `n` is `amplitude × sin(2π × frequency × n / sampleRate)`, computed from its absolute index, so buffers
/// rendered one after another join without a phase jump and any buffer can be re-rendered from its index.
public struct ToneGenerator: Sendable {
    /// Tone frequency in hertz.
    public var frequency: Double
    /// Peak level, 0...1 of full scale.
    public var amplitude: Double
    /// The PCM shape produced (must match the buffers rendered into).
    public let format: PCMFormat

    /// Creates a generator; by default 440 Hz at half scale, 48 kHz stereo Float32.
    public init(frequency: Double = 440, amplitude: Double = 0.5,
                format: PCMFormat = PCMFormat(sampleFormat: .float32, sampleRate: 48_000, channels: 2)) {
        self.frequency = frequency
        self.amplitude = min(max(amplitude, 0), 1)
        self.format = format
    }

    /// The value of sample frame `index`, in -1...1.
    public func value(atSample index: Int64) -> Double {
        let cycles = frequency / Double(format.sampleRate) * Double(index)
        let phase = cycles - cycles.rounded(.down)
        return amplitude * sin(2 * Double.pi * phase)
    }

    /// Fills `buffer` with the sample frames starting at absolute sample frame `firstSample`.
    /// - Precondition: `buffer` has this generator's format and is uniquely referenced.
    public func render(startingAt firstSample: Int64, into buffer: inout PCMBuffer) {
        precondition(buffer.format == format, "ToneGenerator renders \(format), not \(buffer.format)")
        let channels = format.channels
        let frameCount = buffer.frameCount
        buffer.withUnsafeMutableBytes { bytes in
            switch format.sampleFormat {
            case .float32:
                let samples = bytes.bindMemory(to: Float.self)
                for frame in 0..<frameCount {
                    let value = Float(value(atSample: firstSample + Int64(frame)))
                    for channel in 0..<channels { samples[frame * channels + channel] = value }
                }
            case .int16:
                let samples = bytes.bindMemory(to: Int16.self)
                for frame in 0..<frameCount {
                    let value = Int16((value(atSample: firstSample + Int64(frame)) * 32_767).rounded())
                    for channel in 0..<channels { samples[frame * channels + channel] = value }
                }
            }
        }
    }

    /// Fills `buffer` as the `index`-th buffer of a stream of equally long buffers, and stamps its timestamp as
    /// `startPTS` plus the first sample's time.
    public func render(bufferIndex index: Int, startPTS: Int64 = 0, into buffer: inout PCMBuffer) {
        let firstSample = Int64(index) * Int64(buffer.frameCount)
        render(startingAt: firstSample, into: &buffer)
        buffer.pts = startPTS + firstSample * 1_000_000_000 / Int64(format.sampleRate)
    }
}
