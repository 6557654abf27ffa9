import FLV
import Locking
import StreamCore

/// One encode, any number of destinations: the part of a broadcast both platforms run.
///
/// The encoding side (Linux's media thread, the iOS extension's ReplayKit callbacks) hands every tag to
/// ``submit(_:)``, asks ``takeKeyframeRequest()`` and ``takeBitrateRequest()`` before each frame and publishes its
/// ``EncodeCounters``. The engine runs each ``BroadcastOutput`` (its own queue, drops, reconnects), follows their
/// state as it changes, and once a second measures every link for adaptive bitrate and refreshes the
/// ``BroadcastStatistics``.
///
/// - A destination that fails to connect at the start fails the broadcast at once (the settings or the ingest are
///   wrong). Once everything has been live, a destination that gives up ends on its own; the broadcast goes on
///   while any output does.
/// - Adaptive bitrate follows the destinations that keep up: each network output has its own controller, fed by
///   its own link (a sink with an estimate of its own, WebRTC's from RTCP, gives that
///   instead); the encoder runs at the highest bitrate among the outputs that are live. A destination that is
///   down or reconnecting does not count, and a slow one drops by its own queue's policy instead of lowering the
///   picture for the others. With one destination that is simply its controller's bitrate.
public final class BroadcastEngine: Sendable {
    /// The bitrates and whether adaptive bitrate is on.
    public struct Configuration: Sendable, Hashable {
        /// The video bitrate asked for (adaptive bitrate never goes above it), in kbit/s.
        public var videoBitrateKbps: Int
        /// The audio bitrate, in kbit/s.
        public var audioBitrateKbps: Int
        /// Whether the encoder's bitrate follows the links.
        public var adaptiveBitrate: Bool

        /// Creates a configuration.
        public init(videoBitrateKbps: Int, audioBitrateKbps: Int, adaptiveBitrate: Bool) {
            self.videoBitrateKbps = videoBitrateKbps
            self.audioBitrateKbps = audioBitrateKbps
            self.adaptiveBitrate = adaptiveBitrate
        }

        /// The configuration of `settings`.
        public init(settings: StreamSettings) {
            self.init(videoBitrateKbps: settings.videoBitrateKbps, audioBitrateKbps: settings.audioBitrateKbps,
                      adaptiveBitrate: settings.adaptiveBitrate)
        }
    }

    /// What the engine reports as it happens.
    public enum Event: Sendable {
        /// An output's state changed (connecting, live, lost, each reconnect attempt, its end).
        case output(index: Int, status: BroadcastOutput.Status)
        /// The statistics were refreshed (once a second).
        case statistics(BroadcastStatistics)
    }

    /// The destinations.
    public let outputs: [BroadcastOutput]
    /// Metadata and sequence headers every connection gets first.
    public let headers: StreamHeaders
    /// The bitrates.
    public let configuration: Configuration

    private struct Shared {
        var started = false
        var state: BroadcastState = .idle
        var statistics = BroadcastStatistics()
        var counters = EncodeCounters()
        var lastCounters = EncodeCounters()
        var lastRefresh: ContinuousClock.Instant?
        var controllers: [Int: AdaptiveBitrate] = [:]
        var requestedBitrateKbps: Int?
        var stopReason: BroadcastEndReason?
        var failure: BroadcastError?
    }

    private let shared: Locked<Shared>
    private let subscribers = Subscribers<Event>()
    /// Fires when the broadcast should end: asked to, failed, or every output ended on its own.
    private let ending = OneShot<Void>()
    /// Fires true once every output has been live, or false when the broadcast ends before.
    private let allLive = OneShot<Bool>()
    /// Fires once every output has finished.
    private let outputsDone = OneShot<Void>()

    /// Creates an engine.
    /// - Parameters:
    ///   - outputs: the destinations (at least one).
    ///   - headers: what every connection gets first.
    ///   - configuration: the bitrates.
    /// - Throws: `BroadcastError` (`.invalidConfiguration`) without outputs.
    public init(outputs: [BroadcastOutput], headers: StreamHeaders,
                configuration: Configuration) throws(BroadcastError) {
        guard !outputs.isEmpty else {
            throw BroadcastError(.invalidConfiguration, "a broadcast needs at least one output: a URL or --record")
        }
        self.outputs = outputs
        self.headers = headers
        self.configuration = configuration
        var value = Shared()
        if configuration.adaptiveBitrate {
            for (index, output) in outputs.enumerated() where output.sink.isNetwork {
                value.controllers[index] = AdaptiveBitrate(
                    configuration: .init(targetKbps: configuration.videoBitrateKbps))
            }
        }
        value.counters.videoBitrateKbps = configuration.videoBitrateKbps
        value.statistics.currentVideoBitrateKbps = configuration.videoBitrateKbps
        shared = Locked(value)
    }

    /// The broadcast's state: `connecting` until every output is live, `reconnecting` while any output is,
    /// `live` otherwise, then how it ended.
    public var state: BroadcastState { shared.withLock { $0.state } }

    /// The latest statistics (refreshed every second).
    public var statistics: BroadcastStatistics { shared.withLock { $0.statistics } }

    /// Every output change and statistics refresh from now on; the stream ends when the broadcast has.
    public func events() -> AsyncStream<Event> {
        subscribers.subscribe()
    }

    // MARK: - The encoding side

    /// Sets the instant that tag timestamp 0 stands for, so that each output measures capture-to-socket latency.
    public func setClockOrigin(_ origin: ContinuousClock.Instant) {
        for output in outputs { output.setClockOrigin(origin) }
    }

    /// Hands an encoded tag to every output (never blocks).
    public func submit(_ tag: FLVTag) {
        for output in outputs { output.submit(tag) }
    }

    /// Whether any output asked for a keyframe since the last call (a new connection, a flushed queue).
    public func takeKeyframeRequest() -> Bool {
        // Every output is asked: each clears its own request.
        outputs.map { $0.takeKeyframeRequest() }.contains(true)
    }

    /// The bitrate adaptive bitrate asks the encoder for since the last call, if it changed.
    public func takeBitrateRequest() -> Int? {
        shared.withLock { value in
            defer { value.requestedBitrateKbps = nil }
            return value.requestedBitrateKbps
        }
    }

    /// Publishes what the encoding side has done so far.
    public func publish(_ counters: EncodeCounters) {
        shared.withLock { $0.counters = counters }
    }

    // MARK: - Running

    /// Runs the outputs until ``finish(_:)`` and their queues are sent, a failure, or every output ending.
    /// Call once.
    /// - Returns: `.ended(reason)`, or `.failed(error)` (an output that could not start, the encoding side's
    ///   failure, or every output given up).
    public func run() async -> BroadcastState {
        let first = shared.withLock { value -> Bool in
            defer { value.started = true }
            return !value.started
        }
        guard first else { return state }
        setState(.connecting)
        // Subscribed before the outputs start, so that no change is missed.
        let changes = outputs.map { $0.changes() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.tick() }
            group.addTask {
                _ = await self.ending.wait()
                for output in self.outputs { output.finish() }
            }
            await withTaskGroup(of: Void.self) { running in
                for (index, output) in outputs.enumerated() {
                    running.addTask { await output.run(headers: self.headers) }
                    running.addTask {
                        for await status in changes[index] { self.outputChanged(index, status) }
                    }
                }
            }
            outputsDone.fire()
            end()
        }
        refreshStatistics(updateRates: false)
        let final = shared.withLock { value -> BroadcastState in
            let states = outputs.map(\.status.state)
            let failures = states.compactMap { state -> BroadcastError? in
                if case .failed(let error) = state { error } else { nil }
            }
            if let failure = value.failure ?? (failures.count == states.count ? failures.first : nil) {
                value.state = .failed(failure)
            } else {
                value.state = .ended(value.stopReason ?? .stopped)
            }
            return value.state
        }
        subscribers.finish()
        return final
    }

    /// Returns true once every output has been live (the encoding side may start: its clock and the stream's
    /// start together), or false when the broadcast ended first.
    public func waitUntilLive() async -> Bool {
        await allLive.wait() ?? false
    }

    /// Returns once the broadcast is ending (asked to, failed, or every output ended): the encoding side stops.
    public func waitUntilEnding() async {
        _ = await ending.wait()
    }

    /// Ends the broadcast: each output sends what it holds, unpublishes and closes. The first reason counts.
    public func finish(_ reason: BroadcastEndReason = .stopped) {
        shared.withLock { value in
            if value.stopReason == nil { value.stopReason = reason }
        }
        end()
    }

    /// Ends the broadcast as failed (the encoding side broke). The first failure counts.
    public func fail(_ error: BroadcastError) {
        shared.withLock { value in
            if value.failure == nil { value.failure = error }
        }
        end()
    }

    /// The broadcast ends: the outputs are told to finish, and a wait for them all to be live gives up.
    private func end() {
        ending.fire()
        allLive.fire(false)
    }

    private func setState(_ state: BroadcastState) {
        shared.withLock { $0.state = state }
    }

    private func outputChanged(_ index: Int, _ status: BroadcastOutput.Status) {
        let states = outputs.enumerated().map { $0.offset == index ? status.state : $0.element.status.state }
        let everLive = outputs.enumerated().allSatisfy { $0.offset == index ? status.hasBeenLive
                                                                           : $0.element.status.hasBeenLive }
        if case .failed(let error) = status.state, !everLive {
            // Not every destination got going: the settings or an ingest are wrong, so say so now.
            fail(error)
        }
        if everLive { allLive.fire(true) }
        if states.allSatisfy(\.isFinal) { end() }
        shared.withLock { value in
            guard !value.state.isFinal else { return }
            let reconnecting = states.first { if case .reconnecting = $0 { true } else { false } }
            value.state = reconnecting ?? (everLive ? .live : .connecting)
        }
        subscribers.yield(.output(index: index, status: status))
    }

    /// Once a second until every output has finished: link samples, adaptive bitrate, statistics.
    private func tick() async {
        while !(await outputsDone.wait(atMost: .seconds(1))) {
            await sampleLinks()
            refreshStatistics()
        }
    }

    /// Measures every network output's link (which also dates an outage found later by a timeout) and, with
    /// adaptive bitrate on, feeds each output's controller and asks the encoder for the best live one's bitrate.
    private func sampleLinks() async {
        let now = ContinuousClock.now
        var samples: [(index: Int, sample: BroadcastOutput.LinkSample)] = []
        for (index, output) in outputs.enumerated() where output.sink.isNetwork {
            samples.append((index, await output.sampleLink(now: now)))
        }
        let audioKbps = configuration.audioBitrateKbps
        shared.withLock { value in
            let seconds = value.lastRefresh.map { max(0.001, $0.duration(to: now) / .seconds(1)) } ?? 1
            guard !value.controllers.isEmpty else { return }
            var best: Int?
            for (index, sample) in samples {
                if let estimate = sample.estimateKbps {
                    // The sink measures its own path (WebRTC's RTCP): its estimate is the output's bitrate.
                    if sample.isLive { best = max(best ?? 0, min(configuration.videoBitrateKbps, estimate)) }
                    continue
                }
                guard var controller = value.controllers[index] else { continue }
                if sample.connectionRestarted {
                    controller.linkRestarted()
                } else if sample.isLive {
                    _ = controller.update(AdaptiveBitrate.Sample(
                        queueMilliseconds: sample.queueMilliseconds,
                        throughputKbps: Int(Double(sample.sentBytes) * 8 / 1000 / seconds),
                        audioKbps: audioKbps, droppedVideoFrames: sample.droppedVideoFrames))
                }
                value.controllers[index] = controller
                if sample.isLive { best = max(best ?? 0, controller.currentKbps) }
            }
            if let best, best != value.counters.videoBitrateKbps { value.requestedBitrateKbps = best }
        }
    }

    /// Publishes the statistics; `updateRates` false keeps the last second's kbps and fps (for the final snapshot).
    private func refreshStatistics(updateRates: Bool = true) {
        let now = ContinuousClock.now
        let statuses = outputs.map(\.status)
        let statistics = shared.withLock { value -> BroadcastStatistics in
            let seconds = value.lastRefresh.map { max(0.001, $0.duration(to: now) / .seconds(1)) } ?? 1
            let counters = value.counters
            let previous = value.lastCounters
            value.lastRefresh = now
            value.lastCounters = counters
            var statistics = value.statistics
            statistics.elapsedSeconds = counters.elapsedSeconds
            if updateRates {
                statistics.videoKbps = Int(Double(counters.videoBytes - previous.videoBytes) * 8 / 1000 / seconds)
                statistics.audioKbps = Int(Double(counters.audioBytes - previous.audioBytes) * 8 / 1000 / seconds)
                let frames = counters.framesEncoded - previous.framesEncoded
                statistics.framesPerSecond = Double(frames) / seconds
                statistics.frameWorkMilliseconds = frames > 0
                    ? (counters.videoWorkSeconds - previous.videoWorkSeconds) * 1000 / Double(frames) : 0
            }
            statistics.framesEncoded = counters.framesEncoded
            statistics.audioFramesEncoded = counters.audioFramesEncoded
            statistics.framesSkippedLate = counters.framesSkippedLate
            statistics.framesDroppedByQueue = statuses.map(\.queue.droppedVideoFrames).max() ?? 0
            statistics.audioFramesDroppedByQueue = statuses.map(\.queue.droppedAudioFrames).max() ?? 0
            statistics.droppedKeyframesByQueue = statuses.map(\.queue.droppedKeyframes).max() ?? 0
            statistics.queueMilliseconds = statuses.map(\.queueMilliseconds).max() ?? 0
            statistics.reconnects = statuses.map(\.reconnects).reduce(0, +)
            statistics.outages = statuses.map(\.outages).reduce(0, +)
            statistics.offlineSeconds = statuses.map { $0.offline(at: now) / .seconds(1) }.max() ?? 0
            statistics.longestOutageSeconds = statuses.map { $0.longestOutage(at: now) / .seconds(1) }.max() ?? 0
            statistics.latencyP50Milliseconds = statuses.compactMap { $0.latency.percentile(0.50) }.max()
            statistics.latencyP99Milliseconds = statuses.compactMap { $0.latency.percentile(0.99) }.max()
            statistics.currentVideoBitrateKbps = counters.videoBitrateKbps
            value.statistics = statistics
            return statistics
        }
        subscribers.yield(.statistics(statistics))
    }
}
