#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Mixes several interleaved Float32 inputs (a microphone and the system or app audio) into one stream: the one
/// mixer of both platforms (Linux's PulseAudio capture, the iOS extension's microphone and app audio).
///
/// Pure and synchronous: capture threads ``append(_:toInput:)`` what they receive, the consumer calls
/// ``mix(into:)``. Inputs are summed and passed through a soft limiter, so loud overlaps are compressed instead of
/// clipping or wrapping around. Each input's queue is bounded (``capacityFrames``); when one overflows its oldest
/// samples are dropped and counted, which keeps latency bounded if the consumer stalls. When one input lags, the
/// mixer waits for it until another input has ``maximumLagFrames`` queued, then mixes what is there and pads the
/// late input with silence, so a stalled device never stalls the broadcast.
public struct AudioMixer: Sendable {
    /// Interleaved channels of every input and of the output.
    public let channels: Int
    /// The most sample frames queued per input; older ones are dropped beyond it.
    public let capacityFrames: Int
    /// How far the leading input may get ahead before the others are padded with silence.
    public let maximumLagFrames: Int
    /// Sample frames dropped per input because its queue was full.
    public private(set) var droppedFrames: [Int]
    /// Sample frames of silence inserted per input because it lagged.
    public private(set) var paddedFrames: [Int]

    /// Where the limiter starts to bend: samples below it pass unchanged.
    public static let limiterThreshold: Float = 0.8
    /// The loudest sample the limiter lets out (below full scale, which encoders may treat as clipping).
    public static let limiterCeiling: Float = 0.9999

    private var queues: [SampleQueue]

    /// Creates a mixer.
    /// - Parameters:
    ///   - inputCount: how many inputs are mixed (at least 1).
    ///   - channels: interleaved channels (2 for stereo).
    ///   - capacityFrames: queue bound per input (default 500 ms at 48 kHz).
    ///   - maximumLagFrames: wait for a late input at most this much (default 100 ms at 48 kHz).
    public init(inputCount: Int, channels: Int = 2, capacityFrames: Int = 24_000, maximumLagFrames: Int = 4_800) {
        precondition(inputCount >= 1 && channels >= 1, "a mixer needs inputs and channels")
        precondition(capacityFrames >= maximumLagFrames && maximumLagFrames > 0, "the queue must hold the lag")
        self.channels = channels
        self.capacityFrames = capacityFrames
        self.maximumLagFrames = maximumLagFrames
        queues = Array(repeating: SampleQueue(), count: inputCount)
        droppedFrames = Array(repeating: 0, count: inputCount)
        paddedFrames = Array(repeating: 0, count: inputCount)
    }

    /// Sample frames queued for `input`.
    public func availableFrames(input: Int) -> Int { queues[input].count / channels }

    /// Queues interleaved samples for `input`, dropping its oldest samples when the queue is full.
    public mutating func append(_ samples: UnsafeBufferPointer<Float>, toInput input: Int) {
        precondition(samples.count % channels == 0, "samples must be whole interleaved frames")
        queues[input].append(samples)
        let excess = queues[input].count / channels - capacityFrames
        if excess > 0 {
            queues[input].removeFirst(excess * channels)
            droppedFrames[input] += excess
        }
    }

    /// Queues interleaved samples for `input`.
    public mutating func append(_ samples: [Float], toInput input: Int) {
        samples.withUnsafeBufferPointer { append($0, toInput: input) }
    }

    /// Mixes `output.count / channels` sample frames if the inputs allow it.
    /// - Returns: false (and leaves `output` alone) when not enough audio is queued yet.
    public mutating func mix(into output: UnsafeMutableBufferPointer<Float>) -> Bool {
        precondition(output.count % channels == 0, "output must be whole interleaved frames")
        let samples = output.count
        let lead = queues.map(\.count).max() ?? 0
        let everyoneReady = queues.allSatisfy { $0.count >= samples }
        guard lead >= samples, everyoneReady || lead >= maximumLagFrames * channels else { return false }
        for index in 0..<samples { output[index] = 0 }
        for input in queues.indices {
            let taken = min(samples, queues[input].count)
            queues[input].withPrefix(taken) { prefix in
                for index in 0..<taken { output[index] += prefix[index] }
            }
            queues[input].removeFirst(taken)
            paddedFrames[input] += (samples - taken) / channels
        }
        for index in 0..<samples { output[index] = Self.limit(output[index]) }
        return true
    }

    /// Mixes `frames` sample frames if the inputs allow it.
    /// - Returns: the interleaved mix, or nil when not enough audio is queued yet.
    public mutating func mix(frames: Int) -> [Float]? {
        var output = [Float](repeating: 0, count: frames * channels)
        let mixed = output.withUnsafeMutableBufferPointer { mix(into: $0) }
        return mixed ? output : nil
    }

    /// The soft limiter: identity up to ``limiterThreshold``, then a tanh knee that approaches ±1 but never
    /// exceeds ``limiterCeiling``. Monotonic and continuous, so a sum of loud inputs is compressed, never wrapped
    /// or hard-clipped.
    public static func limit(_ sample: Float) -> Float {
        let magnitude = abs(sample)
        guard magnitude > limiterThreshold else { return sample.isNaN ? 0 : sample }
        let headroom = 1 - limiterThreshold
        let knee = headroom * Float(tanh(Double((magnitude - limiterThreshold) / headroom)))
        let bent = min(limiterCeiling, limiterThreshold + knee)
        return sample < 0 ? -bent : bent
    }
}

/// A FIFO of samples that compacts lazily, so removing from the front is cheap.
private struct SampleQueue: Sendable {
    private var storage: [Float] = []
    private var head = 0

    var count: Int { storage.count - head }

    mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        storage.append(contentsOf: samples)
    }

    func withPrefix(_ count: Int, _ body: (UnsafeBufferPointer<Float>) -> Void) {
        storage.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[head..<(head + count)]))
        }
    }

    mutating func removeFirst(_ count: Int) {
        head += count
        if head >= 4_096 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}
