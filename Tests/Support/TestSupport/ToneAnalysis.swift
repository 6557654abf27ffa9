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

    /// The pitch of a steady tone, from the median interval between its upward zero crossings (each placed between
    /// samples by linear interpolation), with what the intervals say of the signal's steadiness.
    public struct Pitch: CustomStringConvertible {
        /// `sampleRate` over the median interval.
        public var frequency: Double
        /// How many intervals there were, and how many differ from the median by more than 5 %: a gap of silence or
        /// a glitch makes a few; a wrong sample rate moves the median itself.
        public var intervals: Int
        public var irregular: Int
        /// The longest interval, in sample frames.
        public var longest: Double
        /// The crossings counted over the whole window, as a frequency: every gap or glitch in the window moves
        /// it, where the median interval moves only when the tone itself is at another pitch.
        public var overWindow: Double

        public var description: String {
            String(format: "%.1f Hz", frequency) + " (\(irregular) of \(intervals) crossing intervals off by > 5 %, "
                + String(format: "longest %.0f frames; the count over the window says %.1f Hz)", longest, overWindow)
        }
    }

    /// The pitch of `samples` (one channel).
    public static func pitch(_ samples: [Float], sampleRate: Double = 48_000) -> Pitch {
        var crossings: [Double] = []
        for index in 1..<max(1, samples.count) where samples[index - 1] < 0 && samples[index] >= 0 {
            let before = Double(samples[index - 1])
            let after = Double(samples[index])
            crossings.append(Double(index - 1) + before / (before - after))
        }
        let overWindow = samples.isEmpty ? 0 : Double(crossings.count) * sampleRate / Double(samples.count)
        let intervals = zip(crossings.dropFirst(), crossings).map { $0 - $1 }
        guard !intervals.isEmpty else {
            return Pitch(frequency: 0, intervals: 0, irregular: 0, longest: 0, overWindow: overWindow)
        }
        let median = intervals.sorted()[intervals.count / 2]
        return Pitch(frequency: sampleRate / median, intervals: intervals.count,
                     irregular: intervals.filter { abs($0 - median) > 0.05 * median }.count,
                     longest: intervals.max() ?? 0, overWindow: overWindow)
    }

    /// Root mean square level.
    public static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
