import FLV
import Locking

/// One destination of a broadcast: its own send queue, connection and reconnects, fed by the session's one encode.
///
/// The session submits every encoded tag with `submit(_:)` (never blocks); `run(headers:)` pumps the queue into the
/// sink as fast as the sink drains, (re)connects with backoff, and re-sends the headers each time, starting at a
/// fresh keyframe. Several outputs can share one session.
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
        /// Why the connection was last lost, or why the last reconnect attempt failed (redacted).
        public var lastError: BroadcastError?
        /// When the current outage began; nil while live.
        public var offlineSince: ContinuousClock.Instant?
        /// How long the last outage that ended lasted, from the loss to being live again.
        public var lastOutageDuration: Duration?
        /// The longest outage that ended.
        public var longestOutageDuration: Duration = .zero
        /// All ended outages together.
        public var offlineDuration: Duration = .zero
        /// Tag bytes handed to the sink since the start.
        public var bytesHanded = 0
        /// Capture-to-socket latency of each video frame: from the instant the frame was captured (its place on
        /// the session clock) to the moment its bytes were handed to the connection's send buffer.
        public var latency = LatencyHistogram()

        /// An idle output's status: nothing sent, never live.
        public init() {}
    }

    private struct Shared {
        var queue: SendQueue
        var status = Status()
        var finishing = false
        var keyframeRequested = false
        var clockOrigin: ContinuousClock.Instant?
    }

    /// Where the tags go.
    public let sink: any MediaSink
    /// When to reconnect and when to give up.
    public let backoff: ReconnectBackoff
    /// Bytes the sink may hold unsent before the pump waits (tags then wait in the measured send queue).
    public let sinkBufferLimit: Int
    private let shared: Locked<Shared>
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Creates an output.
    /// - Parameters:
    ///   - sink: the connection or file.
    ///   - policy: the send queue's drop thresholds (nil: 700 ms / 900 ms / 3 s for a network sink,
    ///     `SendQueue.Policy.recording` for a file).
    ///   - backoff: the reconnect schedule.
    ///   - sinkBufferLimit: bytes the sink may hold before the pump waits for it to drain (default 32 KiB: tags
    ///     past the sink are out of the drop policy's reach and their wait is not measured, so it stays small).
    public init(sink: any MediaSink, policy: SendQueue.Policy? = nil,
                backoff: ReconnectBackoff = ReconnectBackoff(), sinkBufferLimit: Int = 32 * 1024) {
        self.sink = sink
        self.backoff = backoff
        self.sinkBufferLimit = max(4096, sinkBufferLimit)
        let policy = policy ?? (sink.isNetwork ? SendQueue.Policy() : .recording)
        shared = Locked(Shared(queue: SendQueue(policy: policy, startsAtKeyframe: true)))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The current status.
    public var status: Status {
        shared.withLock { value in
            var status = value.status
            status.queue = value.queue.statistics
            status.queueMilliseconds = value.queue.durationMilliseconds
            return status
        }
    }

    /// Sets the instant that tag timestamp 0 stands for on the session clock, so that latency can be measured.
    public func setClockOrigin(_ origin: ContinuousClock.Instant) {
        shared.withLock { $0.clockOrigin = origin }
    }

    /// Queues an encoded tag (never blocks; the queue drops by policy when the sink is too slow).
    public func submit(_ tag: FLVTag) {
        let needsKeyframe = shared.withLock { value -> Bool in
            guard !value.finishing else { return false }
            return value.queue.enqueue(tag).needsKeyframe
        }
        if needsKeyframe { requestKeyframe() }
        wake.yield()
    }

    /// Whether the output asked the encoder for a keyframe since the last call (clears the request).
    public func takeKeyframeRequest() -> Bool {
        shared.withLock { value in
            defer { value.keyframeRequested = false }
            return value.keyframeRequested
        }
    }

    /// No more tags: send what is queued, then close. Also ends a reconnect wait.
    public func finish() {
        shared.withLock { $0.finishing = true }
        wake.yield()
    }

    private func requestKeyframe() {
        shared.withLock { $0.keyframeRequested = true }
    }

    private func setState(_ state: BroadcastState) {
        shared.withLock { value in
            value.status.state = state
            if state == .live { value.status.hasBeenLive = true }
        }
    }

    private var isFinishing: Bool { shared.withLock { $0.finishing } }

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
        while true {
            // Asked to finish while waiting to reconnect: nothing more will come, so end here.
            if isFinishing && attempt > 0 { return finalize(.ended(.stopped)) }
            setState(attempt == 0 ? .connecting : .reconnecting(attempt: attempt))
            do throws(BroadcastError) {
                try await connect(headers: headers)
            } catch {
                await sink.close(flushTimeout: .zero)
                shared.withLock { $0.status.lastError = error }
                // A first connect that fails is reported at once: the settings or the server are wrong. Once live,
                // every failure is retried until the attempts run out: after a stall the ingest may still hold the
                // old session and refuse the publish ("already publishing") until it notices the old one is gone.
                guard status.hasBeenLive else { return finalize(.failed(error)) }
                attempt += 1
                guard attempt <= backoff.maximumAttempts else {
                    return finalize(.failed(gaveUp(after: attempt - 1, error)))
                }
                setState(.reconnecting(attempt: attempt))
                await sleepUnlessFinished(backoff.delay(attempt: attempt, random: random()))
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
                shared.withLock { value in
                    value.status.outages += 1
                    value.status.lastError = error
                    value.status.offlineSince = .now
                }
                await sink.close(flushTimeout: .zero)
                guard error.isTransient, !isFinishing else { return finalize(.failed(error)) }
                attempt = 1
                setState(.reconnecting(attempt: attempt))
                await sleepUnlessFinished(backoff.delay(attempt: attempt, random: random()))
            }
        }
    }

    /// Back live after an outage: counts the reconnect and how long the stream was off the air.
    private func recordReconnect() {
        shared.withLock { value in
            value.status.reconnects += 1
            guard let since = value.status.offlineSince else { return }
            let outage = since.duration(to: .now)
            value.status.offlineSince = nil
            value.status.lastOutageDuration = outage
            value.status.longestOutageDuration = max(value.status.longestOutageDuration, outage)
            value.status.offlineDuration += outage
        }
    }

    private func gaveUp(after attempts: Int, _ error: BroadcastError) -> BroadcastError {
        BroadcastError(.connectionLost, "\(sink.label): gave up after \(attempts) reconnect attempts; last error: "
                            + "\(error.message)")
    }

    private func finalize(_ state: BroadcastState) -> BroadcastState {
        setState(state)
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
            let (batch, finishing) = shared.withLock { value -> ([FLVTag], Bool) in
                var batch: [FLVTag] = []
                while batch.count < 32, let tag = value.queue.dequeue() { batch.append(tag) }
                return (batch, value.finishing)
            }
            if batch.isEmpty {
                if finishing { return }
                _ = await iterator.next()
                continue
            }
            var latencies: [Int] = []
            let origin = shared.withLock { $0.clockOrigin }
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
                try await sink.send(tag)
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

    private func sleepUnlessFinished(_ delay: Duration) async {
        let deadline = ContinuousClock.now + delay
        while !isFinishing, ContinuousClock.now < deadline {
            try? await Task.sleep(for: min(.milliseconds(100), deadline - ContinuousClock.now))
        }
    }
}
