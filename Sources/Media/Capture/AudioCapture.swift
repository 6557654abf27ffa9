#if canImport(CPulse)
import Media
import Locking

/// The broadcast's audio: the chosen microphone, mixed with the system audio when the plan includes it.
///
/// Each input is a ``PulseAudioSource``; their buffers meet in an ``AudioMixer`` and leave as pooled 48 kHz stereo
/// Float32 buffers of `framesPerBuffer` sample frames, handed to the handler on a PulseAudio thread (return quickly).
/// With one input the microphone's buffers pass straight through.
public final class AudioCapture {
    /// What is captured.
    public let plan: AudioCapturePlan
    private var sources: [PulseAudioSource] = []
    private let mix: MixState?

    /// Starts capturing.
    /// - Parameters:
    ///   - plan: from ``AudioCapturePlan/make(savedInputID:includeAppAudio:inputs:)``.
    ///   - options: server, buffer size (1024 suits AAC) and latency, applied to every input.
    ///   - handler: receives each buffer.
    /// - Throws: ``CaptureError`` when an input cannot be opened.
    public init(plan: AudioCapturePlan, options: PulseAudioSource.Options = PulseAudioSource.Options(),
                handler: @escaping @Sendable (PCMBuffer) -> Void) throws(CaptureError) {
        self.plan = plan
        guard let systemAudioID = plan.systemAudioID else {
            mix = nil
            sources = [try PulseAudioSource(sourceID: plan.microphone.id, options: options, handler: handler)]
            return
        }
        let mix = MixState(options: options, handler: handler)
        self.mix = mix
        for (input, id) in [plan.microphone.id, systemAudioID].enumerated() {
            sources.append(try PulseAudioSource(sourceID: id, options: options) { buffer in
                mix.append(buffer, toInput: input)
            })
        }
    }

    deinit { stop() }

    /// Stops every input. Idempotent.
    public func stop() {
        for source in sources { source.stop() }
    }

    /// Per input (microphone first): counters of its capture.
    public var sourceStatistics: [PulseAudioSource.Statistics] { sources.map(\.statistics) }

    /// Per input (microphone first): sample frames dropped by the mixer's bounded queues, and padded with silence
    /// because the input lagged. Empty without mixing.
    public var mixerStatistics: (dropped: [Int], padded: [Int]) {
        guard let mix else { return ([], []) }
        return mix.state.withLock { ($0.mixer.droppedFrames, $0.mixer.paddedFrames) }
    }

    /// The mixer behind a lock: the two inputs deliver on their own PulseAudio threads.
    private final class MixState: Sendable {
        struct Mixing {
            var mixer = AudioMixer(inputCount: 2, channels: PulseAudioSource.format.channels)
            /// The next output buffer's timestamp: the first input buffer's, then advanced by each output's length.
            var nextPTS: Int64?
        }

        let state = Locked(Mixing())
        private let pool: PCMBufferPool
        private let handler: @Sendable (PCMBuffer) -> Void

        init(options: PulseAudioSource.Options, handler: @escaping @Sendable (PCMBuffer) -> Void) {
            pool = PCMBufferPool(format: PulseAudioSource.format, frameCount: options.framesPerBuffer,
                                 maxCount: max(1, options.poolSize))
            self.handler = handler
        }

        func append(_ buffer: PCMBuffer, toInput input: Int) {
            let ready = state.withLock { mixing -> [PCMBuffer] in
                mixing.mixer.append(buffer, toInput: input)
                var ready: [PCMBuffer] = []
                let pts = mixing.nextPTS ?? buffer.pts
                while var output = pool.makeBuffer(pts: pts) {
                    guard mixing.mixer.mix(into: &output) else { break }
                    mixing.nextPTS = (mixing.nextPTS ?? buffer.pts) + output.duration
                    output.pts = mixing.nextPTS! - output.duration
                    ready.append(output)
                }
                return ready
            }
            for output in ready { handler(output) }
        }
    }
}
#endif
