#if os(Linux)
import Capture
import Engine
import Media

/// Captured audio as the broadcast's sound: an ``Capture/AudioCapture`` (microphone, mixed with the system audio
/// when the plan says so) pushing into a bounded ``Capture/AudioBufferQueue`` that the media loop pulls from.
///
/// When no captured buffer is ready at a tick, a buffer of silence is sent so the audio track keeps time; when the
/// capture runs ahead, the queue drops its oldest buffers, so latency stays below ``queueCapacity`` buffers.
public final class PulseAudioInput: AudioSource {
    /// What is captured.
    public let plan: AudioCapturePlan
    /// Sample frames per buffer (one AAC frame).
    public let samplesPerBuffer = 1024
    /// Most buffers waiting (about 170 ms).
    public static let queueCapacity = 8
    private let queue = AudioBufferQueue(capacity: queueCapacity)
    private let capture: AudioCapture
    private let silence: PCMBufferPool

    /// Starts capturing.
    /// - Parameters:
    ///   - plan: the inputs, from `AudioCapturePlan.make`.
    ///   - server: the PulseAudio server, nil for the default.
    /// - Throws: `BroadcastError` (`.invalidConfiguration`) when an input cannot be opened.
    public init(plan: AudioCapturePlan, server: String?) throws(BroadcastError) {
        self.plan = plan
        silence = PCMBufferPool(format: PulseAudioSource.format, frameCount: samplesPerBuffer, maxCount: 2)
        let queue = queue
        do {
            capture = try AudioCapture(plan: plan, options: .init(server: server, framesPerBuffer: samplesPerBuffer)) {
                queue.push($0)
            }
        } catch {
            throw BroadcastError(.invalidConfiguration, "cannot capture audio: \(error.message)")
        }
    }

    deinit { capture.stop() }

    /// The silence pool's counters (the capture's own pools are PulseAudio's side).
    public var statistics: PoolStatistics { silence.statistics }

    /// The oldest captured buffer, or silence when none is ready.
    public func nextBuffer(index: Int) -> PCMBuffer? {
        if let buffer = queue.pop(), buffer.frameCount == samplesPerBuffer { return buffer }
        guard var buffer = silence.makeBuffer(pts: 0) else { return nil }
        buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        return buffer
    }
}
#endif
