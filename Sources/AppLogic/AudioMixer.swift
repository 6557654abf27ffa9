/// Mixes the app's audio and the microphone into the one stereo track an FLV stream carries.
///
/// Both sources arrive already converted to `sampleRate` interleaved stereo Float32 (the shell's
/// `AVAudioConverter` does that), in chunks of their own sizes and rhythms. Frames present in both are summed and
/// clipped to -1...1. A source that runs ahead of a silent one by more than `maximumLagFrames` is emitted alone, so a
/// source that never comes (the mic switched off in the picker) costs at most that much latency and memory.
public struct AudioMixer: Sendable {
    /// The mix's sample rate.
    public static let sampleRate = 48_000
    /// The mix's channel count (interleaved left, right).
    public static let channels = 2

    /// The sources being mixed; buffers from any other source are ignored.
    public let sources: Set<SampleRouting.AudioSource>
    /// How far one source may run ahead of the other, in sample frames, before it is emitted alone.
    public let maximumLagFrames: Int
    private var pending: [SampleRouting.AudioSource: [Float]] = [:]

    /// Creates a mixer.
    /// - Parameters:
    ///   - sources: `SampleRouting.mixedSources`.
    ///   - maximumLagFrames: the lag bound; 4800 frames is 100 ms at 48 kHz.
    public init(sources: Set<SampleRouting.AudioSource>, maximumLagFrames: Int = 4800) {
        self.sources = sources
        self.maximumLagFrames = max(maximumLagFrames, 0)
    }

    /// Sample frames waiting for a source.
    /// - Parameter source: the source.
    public func pendingFrames(of source: SampleRouting.AudioSource) -> Int {
        (pending[source]?.count ?? 0) / Self.channels
    }

    /// Adds converted samples; a trailing partial sample frame is dropped.
    /// - Parameters:
    ///   - samples: interleaved stereo at `sampleRate`.
    ///   - source: where they came from.
    public mutating func append(_ samples: [Float], from source: SampleRouting.AudioSource) {
        guard sources.contains(source) else { return }
        let whole = samples.count - samples.count % Self.channels
        pending[source, default: []].append(contentsOf: samples[..<whole])
    }

    /// Takes every sample frame that is ready: the overlap of the sources mixed, then any source's lead beyond the
    /// lag bound on its own.
    /// - Returns: interleaved stereo samples, possibly empty.
    public mutating func takeMixed() -> [Float] {
        let active = SampleRouting.AudioSource.allCases.filter { sources.contains($0) }
        guard active.count > 1 else {
            guard let only = active.first else { return [] }
            defer { pending[only] = [] }
            return pending[only] ?? []
        }
        let common = active.map { pending[$0]?.count ?? 0 }.min() ?? 0
        var output = [Float](repeating: 0, count: common)
        for source in active {
            guard let samples = pending[source], !samples.isEmpty else { continue }
            for index in 0..<common { output[index] += samples[index] }
            pending[source] = Array(samples[common...])
        }
        for index in output.indices { output[index] = min(max(output[index], -1), 1) }
        for source in active {
            let samples = pending[source] ?? []
            let excess = samples.count - maximumLagFrames * Self.channels
            guard excess > 0 else { continue }
            output.append(contentsOf: samples[..<excess])
            pending[source] = Array(samples[excess...])
        }
        return output
    }
}
