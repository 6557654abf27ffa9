#if os(Linux)
import Foundation
import StreamCore
import Locking

/// A live broadcast: screen, camera and audio sources → PiP compositor → H.264/AAC encoders → FLV tags → one or
/// more outputs.
///
/// - The encode size is locked when the session is created, from the screen's size and the quality.
/// - Audio and video are stamped on one monotonic clock that starts when every output is first live, so they stay
///   in sync. The media work runs on its own thread in real time (see `MediaPipeline`): when it falls behind, frames
///   are skipped and counted, never drifted.
/// - Each output has its own bounded send queue and reconnects on its own (see `BroadcastOutput`); an output that
///   gives up fails the whole broadcast.
/// - Adaptive bitrate (a setting): the encoder's bitrate follows the slowest network output's throughput down and
///   climbs back gradually.
///
/// Call `run()` once; it returns the final state. `stop()`, `state` and `statistics` may be used from anywhere.
public actor BroadcastSession {
    /// The configuration (settings clamped).
    public nonisolated let configuration: BroadcastConfiguration
    /// The locked encode size.
    public nonisolated let encodeSize: PixelSize
    /// The outputs fed by the one encode.
    public nonisolated let outputs: [BroadcastOutput]
    /// Metadata and sequence headers every connection gets first.
    public nonisolated let headers: StreamHeaders

    private nonisolated let control = PipelineControl()
    private nonisolated let snapshot = Locked((state: BroadcastState.idle, statistics: BroadcastStatistics()))
    private let pipeline: PipelineHandoff
    private var adaptive: [Int: AdaptiveBitrate] = [:]
    private var lastSample: [Int: (handed: Int, queued: Int, acknowledged: Int?, dropped: Int)] = [:]
    private var lastCounters = PipelineControl.Counters()
    private var lastRefresh = ContinuousClock.now

    /// Creates a session: locks the encode size, opens the sources and encoders and prepares the headers.
    /// - Parameters:
    ///   - configuration: settings and sources.
    ///   - outputs: where the stream goes (at least one).
    /// - Throws: `BroadcastError` (`.invalidConfiguration` or `.encoderFailed`).
    public init(configuration: BroadcastConfiguration, outputs: [BroadcastOutput]) throws(BroadcastError) {
        guard !outputs.isEmpty else {
            throw BroadcastError(.invalidConfiguration, "a broadcast needs at least one output: a URL or --record")
        }
        var configuration = configuration
        configuration.settings.clamp()
        let pipeline = try MediaPipeline(configuration: configuration, outputs: outputs)
        self.configuration = configuration
        self.outputs = outputs
        encodeSize = pipeline.encodeSize
        headers = pipeline.headers
        self.pipeline = PipelineHandoff(pipeline)
        let settings = configuration.settings
        if settings.adaptiveBitrate {
            for (index, output) in outputs.enumerated() where output.sink.isNetwork {
                adaptive[index] = AdaptiveBitrate(configuration: .init(targetKbps: settings.videoBitrateKbps))
            }
        }
        snapshot.withLock { $0.statistics.currentVideoBitrateKbps = settings.videoBitrateKbps }
    }

    /// The current state (callable from anywhere, without waiting for the session).
    public nonisolated var state: BroadcastState { snapshot.withLock { $0.state } }

    /// The latest statistics (refreshed every second).
    public nonisolated var statistics: BroadcastStatistics { snapshot.withLock { $0.statistics } }

    /// Ends the broadcast cleanly: the sources stop, the encoders flush, each output sends what it holds, unpublishes
    /// and closes. `run()` then returns `.ended(.stopped)`.
    public nonisolated func stop() {
        control.stop(.stopped)
    }

    private nonisolated func setState(_ state: BroadcastState) {
        snapshot.withLock { $0.state = state }
    }

    /// Runs the broadcast until the duration elapses, `stop()` is called, or it fails.
    /// - Returns: `.ended(reason)` or `.failed(error)`.
    public func run() async -> BroadcastState {
        guard state == .idle, let pipeline = pipeline.take() else { return state }
        setState(.connecting)
        let headers = self.headers
        await withTaskGroup(of: Void.self) { group in
            for output in outputs {
                group.addTask { await output.run(headers: headers) }
            }
            if await waitForOutputsLive() {
                setState(.live)
                lastRefresh = .now
                let thread = MediaThread(pipeline: pipeline, control: control)
                thread.start()
                await monitor()
                await thread.finished()
            }
            for output in outputs { output.finish() }
            await group.waitForAll()
        }
        refreshStatistics(updateRates: false)
        let outcome = control.outcome
        let final: BroadcastState = outcome.failure.map { .failed($0) } ?? .ended(outcome.reason ?? .stopped)
        setState(final)
        return final
    }

    /// Waits until every output is live (true) or one failed or a stop came first (false).
    private func waitForOutputsLive() async -> Bool {
        while true {
            let states = outputs.map(\.status.state)
            if let failure = Self.firstFailure(states) {
                control.fail(failure)
                return false
            }
            if states.allSatisfy({ $0 == .live }) { return true }
            if control.shouldStop { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private static func firstFailure(_ states: [BroadcastState]) -> BroadcastError? {
        for state in states {
            if case .failed(let error) = state { return error }
        }
        return nil
    }

    /// Every 100 ms: output failures and state; every second: adaptive bitrate and statistics.
    private func monitor() async {
        var tick = 0
        while !control.isFinished {
            try? await Task.sleep(for: .milliseconds(100))
            tick += 1
            if let failure = Self.firstFailure(outputs.map(\.status.state)) { control.fail(failure) }
            if tick % 10 == 0 {
                await adaptBitrate()
                refreshStatistics()
            } else {
                updateState()
            }
        }
    }

    private func updateState() {
        for output in outputs {
            if case .reconnecting(let attempt) = output.status.state {
                setState(.reconnecting(attempt: attempt))
                return
            }
        }
        if !state.isFinal { setState(.live) }
    }

    private func adaptBitrate() async {
        guard !adaptive.isEmpty else { return }
        let seconds = max(0.001, (ContinuousClock.now - lastRefresh) / .seconds(1))
        var lowest: Int?
        for (index, var controller) in adaptive {
            let output = outputs[index]
            let status = output.status
            let queued = await output.sink.queuedBytes
            let acknowledged = await output.sink.bytesAcknowledged
            let previous = lastSample[index] ?? (handed: 0, queued: 0, acknowledged: nil, dropped: 0)
            let sentBytes: Int
            if let acknowledged, let before = previous.acknowledged, acknowledged >= before {
                // What the receiver acknowledged: the link's real throughput, whatever the kernel buffers.
                sentBytes = acknowledged - before
            } else {
                // No TCP figure (a new connection, or none to ask): what left our queue for the kernel.
                sentBytes = max(0, (status.bytesHanded - previous.handed) - (queued - previous.queued))
            }
            lastSample[index] = (status.bytesHanded, queued, acknowledged, status.queue.droppedVideoFrames)
            _ = controller.update(AdaptiveBitrate.Sample(
                queueMilliseconds: status.queueMilliseconds,
                throughputKbps: Int(Double(sentBytes) * 8 / 1000 / seconds),
                audioKbps: configuration.settings.audioBitrateKbps,
                droppedVideoFrames: status.queue.droppedVideoFrames - previous.dropped))
            adaptive[index] = controller
            lowest = min(lowest ?? controller.currentKbps, controller.currentKbps)
        }
        if let lowest, lowest != control.counters.videoBitrateKbps {
            control.requestBitrate(lowest)
        }
    }

    /// Publishes the counters; `updateRates` false keeps the last second's kbps and fps (for the final snapshot).
    private func refreshStatistics(updateRates: Bool = true) {
        let now = ContinuousClock.now
        let seconds = max(0.001, (now - lastRefresh) / .seconds(1))
        let counters = control.counters
        let previous = lastCounters
        lastRefresh = now
        lastCounters = counters
        let statuses = outputs.map(\.status)
        var statistics = self.statistics
        statistics.elapsedSeconds = counters.elapsedSeconds
        if updateRates {
            statistics.videoKbps = Int(Double(counters.videoBytes - previous.videoBytes) * 8 / 1000 / seconds)
            statistics.audioKbps = Int(Double(counters.audioBytes - previous.audioBytes) * 8 / 1000 / seconds)
            statistics.framesPerSecond = Double(counters.framesEncoded - previous.framesEncoded) / seconds
            let frames = counters.framesEncoded - previous.framesEncoded
            statistics.frameWorkMilliseconds = frames > 0
                ? (counters.videoWorkSeconds - previous.videoWorkSeconds) * 1000 / Double(frames) : 0
        }
        statistics.framesEncoded = counters.framesEncoded
        statistics.audioFramesEncoded = counters.audioFramesEncoded
        statistics.framesSkippedLate = counters.framesSkippedLate
        statistics.framesDroppedByQueue = statuses.map(\.queue.droppedVideoFrames).max() ?? 0
        statistics.audioFramesDroppedByQueue = statuses.map(\.queue.droppedAudioFrames).max() ?? 0
        statistics.queueMilliseconds = statuses.map(\.queueMilliseconds).max() ?? 0
        statistics.reconnects = statuses.map(\.reconnects).reduce(0, +)
        statistics.outages = statuses.map(\.outages).reduce(0, +)
        statistics.offlineSeconds = statuses.map { status in
            let current = status.offlineSince.map { $0.duration(to: now) } ?? .zero
            return (status.offlineDuration + current) / .seconds(1)
        }.max() ?? 0
        statistics.longestOutageSeconds = statuses.map { $0.longestOutageDuration / .seconds(1) }.max() ?? 0
        statistics.droppedKeyframesByQueue = statuses.map(\.queue.droppedKeyframes).max() ?? 0
        statistics.latencyP50Milliseconds = statuses.compactMap { $0.latency.percentile(0.50) }.max()
        statistics.latencyP99Milliseconds = statuses.compactMap { $0.latency.percentile(0.99) }.max()
        statistics.currentVideoBitrateKbps = counters.videoBitrateKbps
        statistics.screenPool = counters.screenPool
        statistics.encodePool = counters.encodePool
        statistics.cameraPool = counters.cameraPool
        statistics.framesComposited = counters.framesComposited
        statistics.frameBufferAllocations = counters.frameBufferAllocations
        snapshot.withLock { $0.statistics = statistics }
        updateState()
    }
}

/// Hands the pipeline (a non-Sendable object) from the session's init to the one media thread that uses it.
final class PipelineHandoff: @unchecked Sendable {
    // Safe: `pipeline` is only read and cleared under `lock`, and `take()` gives it out once; after that only the
    // media thread holds it.
    private let lock = NSLock()
    private var pipeline: MediaPipeline?

    init(_ pipeline: MediaPipeline) {
        self.pipeline = pipeline
    }

    /// The pipeline the first time; nil after.
    func take() -> MediaPipeline? {
        lock.lock()
        defer { lock.unlock() }
        defer { pipeline = nil }
        return pipeline
    }
}

/// The dedicated thread running a `MediaPipeline`, and an async wait for its end.
final class MediaThread: @unchecked Sendable {
    // Safe: `pipeline` is touched only by the thread started in `start()` (once); `waiters` and `done` are only
    // accessed under `lock`.
    private let pipeline: MediaPipeline
    private let control: PipelineControl
    private let lock = NSLock()
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var done = false

    init(pipeline: MediaPipeline, control: PipelineControl) {
        self.pipeline = pipeline
        self.control = control
    }

    /// Starts the thread (call once).
    func start() {
        let thread = Thread { [self] in
            pipeline.run(control: control)
            control.markFinished()
            lock.lock()
            done = true
            let waiting = waiters
            waiters = []
            lock.unlock()
            waiting.forEach { $0.resume() }
        }
        thread.name = "stream-media"
        thread.start()
    }

    /// Returns once the pipeline has finished.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if done {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
#endif
