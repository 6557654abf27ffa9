import FLV
import Locking
import StreamCore

/// One destination of a broadcast: its own send queue, connection and reconnects, fed by the one encode.
///
/// The producer submits every encoded tag with `submit(_:)` (never blocks); `run(headers:)` pumps the queue into the
/// sink as fast as the sink drains, (re)connects with backoff, and re-sends the headers each time, starting at a
/// fresh keyframe. Several outputs can share one encode; a slow or dead one drops by its own policy and never holds
/// up the others. Every wait is on an event (a tag arriving, the sink draining, `finish()`, the backoff's timer);
/// state changes are pushed to ``changes()`` as they happen.
public final class BroadcastOutput: Sendable {
    /// A snapshot of the output.
    public struct Status: Sendable, Hashable {
        /// The output's state.
        public var state: BroadcastState = .idle
        /// Whether it has been live at least once.
        public var hasBeenLive = false
        /// The send queue's counters.
        public var queue = SendQueue.Statistics()
        /// The queue's span in milliseconds of media.
        public var queueMilliseconds: Int64 = 0
        /// Successful reconnects.
        public var reconnects = 0
        /// Times a live connection was lost.
        public var outages = 0
        /// Frames skipped because they were too large to send (over RTMP's 16 MiB message limit).
        public var oversizedFrames = 0
        /// Why the connection was last lost, or why the last reconnect attempt failed (redacted).
        public var lastError: BroadcastError?
        /// When the current outage began (when the link stopped carrying bytes, not when the loss was noticed);
        /// nil while live.
        public var offlineSince: ContinuousClock.Instant?
        /// How long the last outage that ended lasted, from the loss to being live again.
        public var lastOutageDuration: Duration?
        /// The longest outage that ended.
        public var longestOutageDuration: Duration = .zero
        /// All ended outages together.
        public var offlineDuration: Duration = .zero
        /// Tag bytes handed to the sink since the start.
        public var bytesHanded = 0
        /// When the link was last seen carrying bytes (acknowledged by the receiver, or leaving the sink's queue),
        /// or had nothing to carry; sampled by ``sampleLink(now:)``.
        public var lastProgress: ContinuousClock.Instant?
        /// Capture-to-socket latency of each video frame: from the instant the frame was captured (its place on
        /// the session clock) to the moment its bytes were handed to the connection's send buffer.
        public var latency = LatencyHistogram()

        /// An idle output's status: nothing sent, never live.
        public init() {}

        /// Time off the air so far: the ended outages and the ongoing one.
        /// - Parameter now: the present.
        public func offline(at now: ContinuousClock.Instant) -> Duration {
            offlineDuration + (offlineSince.map { $0.duration(to: now) } ?? .zero)
        }

        /// The longest outage so far, the ongoing one included.
        /// - Parameter now: the present.
        public func longestOutage(at now: ContinuousClock.Instant) -> Duration {
            max(longestOutageDuration, offlineSince.map { $0.duration(to: now) } ?? .zero)
        }
    }

    /// One interval's measurement of the link, for adaptive bitrate.
    public struct LinkSample: Sendable, Hashable {
        /// Bytes that crossed the link during the interval: acknowledged by the receiver where the sink knows,
        /// else handed to the network stack.
        public var sentBytes: Int
        /// The queue's span at the end of the interval, in milliseconds of media.
        public var queueMilliseconds: Int64
        /// Video frames the queue dropped during the interval.
        public var droppedVideoFrames: Int
        /// Whether the output was live through the whole interval (not connecting, reconnecting or finished).
        public var isLive: Bool
        /// Whether the connection was (re)opened since the last sample: the byte counts restarted, so this
        /// interval measures nothing.
        public var connectionRestarted: Bool
        /// The sink's own estimate of its path's video bitrate (WebRTC's RTCP-fed estimate), if it has one.
        public var estimateKbps: Int?
    }

    private struct Shared {
        var queue: SendQueue
        var status = Status()
        var keyframeRequested = false
        var clockOrigin: ContinuousClock.Instant?
        /// Connections opened so far; a sample across a reconnect measures nothing.
        var connection = 0
        var baseline: Baseline?
    }

    /// What the previous link sample saw.
    private struct Baseline {
        var connection: Int
        var handed: Int
        var queued: Int
        var acknowledged: Int?
        var dropped: Int
        var wasLive: Bool
    }

    /// Bytes the sink may hold unsent by default (see ``sinkBufferLimit``).
    public static let defaultSinkBufferLimit = 32 * 1024

    /// A link silent for longer than this before a loss was noticed was already down: the outage starts when it
    /// went silent (a stall found by a timeout), not when the loss was noticed.
    public static let silenceCountedAsOutage = Duration.seconds(2)

    /// Where the tags go.
    public let sink: any MediaSink
    /// When to reconnect and when to give up.
    public let backoff: ReconnectBackoff
    /// Bytes the sink may hold unsent before the pump waits (tags then wait in the measured send queue).
    public let sinkBufferLimit: Int
    private let shared: Locked<Shared>
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let finishing = OneShot<Void>()
    private let subscribers = Subscribers<Status>()

    /// Creates an output.
    /// - Parameters:
    ///   - sink: the connection or file.
    ///   - policy: the send queue's drop thresholds (nil: 700 ms / 900 ms / 3 s for a network sink,
    ///     `SendQueue.Policy.recording` for a file).
    ///   - backoff: the reconnect schedule.
    ///   - sinkBufferLimit: bytes the sink may hold before the pump waits for it to drain (default 32 KiB: tags
    ///     past the sink are out of the drop policy's reach and their wait is not measured, so it stays small).
    public init(sink: any MediaSink, policy: SendQueue.Policy? = nil,
                backoff: ReconnectBackoff = ReconnectBackoff(), sinkBufferLimit: Int = defaultSinkBufferLimit) {
        self.sink = sink
        self.backoff = backoff
        self.sinkBufferLimit = max(4096, sinkBufferLimit)
        let policy = policy ?? (sink.isNetwork ? SendQueue.Policy() : .recording)
        shared = Locked(Shared(queue: SendQueue(policy: policy, startsAtKeyframe: true)))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The current status.
    public var status: Status {
        shared.withLock { Self.snapshot($0) }
    }

    private static func snapshot(_ value: Shared) -> Status {
        var status = value.status
        status.queue = value.queue.statistics
        status.queueMilliseconds = value.queue.durationMilliseconds
        return status
    }

    /// The status after every change of state (connecting, live, each reconnect attempt, the end), from now on;
    /// the stream ends when the output has finished.
    public func changes() -> AsyncStream<Status> {
        subscribers.subscribe()
    }

    /// Sets the instant that tag timestamp 0 stands for on the session clock, so that latency can be measured.
    public func setClockOrigin(_ origin: ContinuousClock.Instant) {
        shared.withLock { $0.clockOrigin = origin }
    }

    /// Queues an encoded tag (never blocks; the queue drops by policy when the sink is too slow).
    public func submit(_ tag: FLVTag) {
        let accepted = shared.withLock { value -> Bool in
            guard !value.status.state.isFinal, finishing.value == nil else { return false }
            if value.queue.enqueue(tag).needsKeyframe { value.keyframeRequested = true }
            return true
        }
        if accepted { wake.yield() }
    }

    /// Whether the output asked the encoder for a keyframe since the last call (clears the request).
    public func takeKeyframeRequest() -> Bool {
        shared.withLock { value in
            defer { value.keyframeRequested = false }
            return value.keyframeRequested
        }
    }

    /// Asks the encoder for a keyframe (through ``takeKeyframeRequest()``): the sink's receiver lost the picture.
    public func requestKeyframe() {
        shared.withLock { $0.keyframeRequested = true }
    }

    /// No more tags: send what is queued, then close. Also ends a reconnect wait at once.
    public func finish() {
        finishing.fire()
        wake.yield()
    }

    /// Measures the link since the last call (the engine calls it once per interval), and notes whether it still
    /// carries bytes: the instant it last did starts the outage when the loss is noticed later (a stall).
    /// - Parameter now: the end of the interval.
    public func sampleLink(now: ContinuousClock.Instant = .now) async -> LinkSample {
        let queued = await sink.queuedBytes
        let acknowledged = await sink.bytesAcknowledged
        let estimate = await sink.bitrateEstimateKbps
        return shared.withLock { value in
            let handed = value.status.bytesHanded
            let dropped = value.queue.statistics.droppedVideoFrames
            let isLive = value.status.state == .live
            var sample = LinkSample(sentBytes: 0, queueMilliseconds: value.queue.durationMilliseconds,
                                    droppedVideoFrames: 0, isLive: isLive, connectionRestarted: true,
                                    estimateKbps: estimate)
            if let previous = value.baseline, previous.connection == value.connection {
                if let acknowledged, let before = previous.acknowledged, acknowledged >= before {
                    // What the receiver acknowledged: the link's real throughput, whatever the kernel buffers.
                    sample.sentBytes = acknowledged - before
                } else {
                    // No TCP figure (none to ask): what left our queue for the network stack.
                    sample.sentBytes = max(0, (handed - previous.handed) - (queued - previous.queued))
                }
                sample.droppedVideoFrames = dropped - previous.dropped
                sample.connectionRestarted = false
                sample.isLive = isLive && previous.wasLive
            }
            if isLive && (sample.sentBytes > 0 || (value.queue.isEmpty && queued == 0)) {
                value.status.lastProgress = now
            }
            value.baseline = Baseline(connection: value.connection, handed: handed, queued: queued,
                                      acknowledged: acknowledged, dropped: dropped, wasLive: isLive)
            return sample
        }
    }

    private func update(_ body: (inout Status) -> Void) {
        let status = shared.withLock { value -> Status in
            body(&value.status)
            return Self.snapshot(value)
        }
        subscribers.yield(status)
    }

    private func setState(_ state: BroadcastState) {
        update { status in
            status.state = state
            if state == .live {
                status.hasBeenLive = true
                status.lastProgress = .now
            }
        }
    }

    private var isFinishing: Bool { finishing.value != nil }

    /// Connects, pumps, reconnects; returns when finished (`.ended(.stopped)`) or given up (`.failed`).
    /// - Parameters:
    ///   - headers: metadata and sequence headers, sent after every connect.
    ///   - random: uniform 0..<1 numbers for the backoff's jitter.
    /// - Returns: the output's final state.
    @discardableResult
    public func run(headers: StreamHeaders,
                    random: @Sendable () -> Double = { Double.random(in: 0..<1) }) async -> BroadcastState {
        var attempt = 0
        var iterator = wakeups.makeAsyncIterator()
        await sink.prepare(headers: headers) { [weak self] in self?.requestKeyframe() }
        while true {
            // Asked to finish while waiting to reconnect: nothing more will come, so end here.
            if isFinishing && attempt > 0 { return finalize(.ended(.stopped)) }
            shared.withLock { $0.connection += 1 }
            setState(attempt == 0 ? .connecting : .reconnecting(attempt: attempt))
            do throws(BroadcastError) {
                try await connect(headers: headers)
            } catch {
                await sink.close(flushTimeout: .zero)
                // A first connect that fails is reported at once: the settings or the server are wrong. Once live,
                // every failure is retried until the attempts run out: after a stall the ingest may still hold the
                // old session and refuse the publish ("already publishing") until it notices the old one is gone.
                guard status.hasBeenLive else {
                    update { $0.lastError = error }
                    return finalize(.failed(error))
                }
                attempt += 1
                guard attempt <= backoff.maximumAttempts else {
                    update { $0.lastError = error }
                    return finalize(.failed(gaveUp(after: attempt - 1, error)))
                }
                update { status in
                    status.lastError = error
                    status.state = .reconnecting(attempt: attempt)
                }
                _ = await finishing.wait(atMost: backoff.delay(attempt: attempt, random: random()))
                continue
            }
            if attempt > 0 { recordReconnect() }
            attempt = 0
            setState(.live)
            do throws(BroadcastError) {
                try await pump(&iterator)
                await sink.close(flushTimeout: .seconds(2))
                return finalize(.ended(.stopped))
            } catch {
                recordLoss(error)
                await sink.close(flushTimeout: .zero)
                guard error.isTransient, !isFinishing else { return finalize(.failed(error)) }
                attempt = 1
                setState(.reconnecting(attempt: attempt))
                _ = await finishing.wait(atMost: backoff.delay(attempt: attempt, random: random()))
            }
        }
    }

    /// A live connection was lost: the outage starts when the link went silent if that was a while before the loss
    /// was noticed (a stall found by a timeout), else now.
    private func recordLoss(_ error: BroadcastError) {
        let now = ContinuousClock.now
        update { status in
            status.outages += 1
            status.lastError = error
            let silent = max(status.lastProgress.map { $0.duration(to: now) } ?? .zero, error.silentFor ?? .zero)
            status.offlineSince = silent > Self.silenceCountedAsOutage ? now - silent : now
        }
    }

    /// Back live after an outage: counts the reconnect and how long the stream was off the air.
    private func recordReconnect() {
        update { status in
            status.reconnects += 1
            Self.endOutage(&status, at: .now)
        }
    }

    private static func endOutage(_ status: inout Status, at now: ContinuousClock.Instant) {
        guard let since = status.offlineSince else { return }
        let outage = since.duration(to: now)
        status.offlineSince = nil
        status.lastOutageDuration = outage
        status.longestOutageDuration = max(status.longestOutageDuration, outage)
        status.offlineDuration += outage
    }

    private func gaveUp(after attempts: Int, _ error: BroadcastError) -> BroadcastError {
        BroadcastError(.connectionLost, "\(sink.label): gave up after \(attempts) reconnect attempts; last error: "
                            + "\(error.message)", publishError: error.publishError)
    }

    /// The end: an outage still going on counts as ended now (a broadcast stopped while reconnecting reports it).
    private func finalize(_ state: BroadcastState) -> BroadcastState {
        update { status in
            Self.endOutage(&status, at: .now)
            status.state = state
        }
        subscribers.finish()
        return state
    }

    /// Opens the sink and sends the headers; media restarts at a fresh keyframe on the new connection.
    private func connect(headers: StreamHeaders) async throws(BroadcastError) {
        try await sink.open()
        shared.withLock { value in
            guard value.status.hasBeenLive else { return }
            value.queue.restartAtKeyframe()
            value.keyframeRequested = true
        }
        try await sink.sendMetadata(headers.metadata)
        try await sink.send(headers.videoSequenceHeader)
        try await sink.send(headers.audioSequenceHeader)
    }

    /// Sends queued tags until finished and drained; throws when the sink fails.
    private func pump(_ iterator: inout AsyncStream<Void>.Iterator) async throws(BroadcastError) {
        // Timestamps restart near zero on every connection: the first media tag (a keyframe) is the base.
        var base: UInt32?
        while true {
            let (batch, origin) = shared.withLock { value -> ([FLVTag], ContinuousClock.Instant?) in
                var batch: [FLVTag] = []
                while batch.count < 32, let tag = value.queue.dequeue() { batch.append(tag) }
                return (batch, value.clockOrigin)
            }
            if batch.isEmpty {
                if isFinishing { return }
                _ = await iterator.next()
                continue
            }
            var latencies: [Int] = []
            for var tag in batch {
                let captured = tag.type == .video && !tag.isSequenceHeader
                    ? origin.map { $0 + .milliseconds(Int64(tag.timestamp)) } : nil
                if tag.type != .scriptData && !tag.isSequenceHeader {
                    let origin = base ?? tag.timestamp
                    base = origin
                    let offset = tag.timestamp &- origin
                    // Older than the base (audio captured just before the keyframe): not part of this connection.
                    if offset > UInt32.max / 2 { continue }
                    tag.timestamp = offset
                }
                do throws(BroadcastError) {
                    try await sink.send(tag)
                } catch where error.code == .frameTooLarge {
                    skipOversized(tag, error)
                    continue
                }
                // Counted per tag, not per batch: adaptive bitrate subtracts the sink's queue from this count, and
                // a batch counted late would read as a slower link.
                shared.withLock { $0.status.bytesHanded += tag.body.count }
                if let captured {
                    latencies.append(Int((ContinuousClock.now - captured) / .milliseconds(1)))
                }
            }
            shared.withLock { value in
                for latency in latencies { value.status.latency.record(milliseconds: latency) }
            }
            if await sink.queuedBytes > sinkBufferLimit {
                try await sink.waitForDrain(below: sinkBufferLimit / 2)
            }
        }
    }

    /// A tag too large to send: skipped and counted; video resumes at the next keyframe, which is asked for.
    private func skipOversized(_ tag: FLVTag, _ error: BroadcastError) {
        shared.withLock { value in
            value.status.oversizedFrames += 1
            value.status.lastError = error
            if tag.type == .video {
                value.queue.skipVideoUntilKeyframe()
                value.keyframeRequested = true
            }
        }
    }
}
