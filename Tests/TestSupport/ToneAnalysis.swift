import Foundation

/// Frequency checks on captured or mixed audio (interleaved stereo Float32).
public enum ToneAnalysis {
    /// The left channel of interleaved stereo.
    public static func left(_ samples: [Float]) -> [Float] {
        stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
    }

    /// Goertzel power at `frequency`, normalised by length so different lengths compare.
    public static func power(at frequency: Double, in samples: [Float], sampleRate: Double = 48_000) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0
        var beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return power / Double(samples.count * samples.count)
    }

    /// The frequency estimated from upward zero crossings.
    public static func zeroCrossingFrequency(_ samples: [Float], sampleRate: Double = 48_000) -> Double {
        var crossings = 0
        for index in 1..<samples.count where samples[index - 1] < 0 && samples[index] >= 0 { crossings += 1 }
        return Double(crossings) * sampleRate / Double(samples.count)
    }

    /// Root mean square level.
    public static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
