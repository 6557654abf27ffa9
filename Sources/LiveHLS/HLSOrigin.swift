import FLV
#if canImport(FoundationEssentials)
import FoundationEssentials
import Dispatch
import Glibc
#else
import Foundation
#endif
import HLS
import Locking

/// The LL-HLS origin of a server: one ``LLHLSPackager`` per published stream, fed by the ingest, and the answers
/// to players' requests, held until what they ask for exists.
///
/// The ingest calls ``publishStarted(_:)``, ``append(_:to:)`` and ``publishStopped(_:)`` on its loop thread; HTTP
/// handlers call ``playlist(_:query:)``, ``resource(_:name:)`` and ``resource(directory:name:)`` from any task, or,
/// without a task, ``playlistNow(_:query:)`` and ``resourceNow(directory:name:)`` and, for what must be held, the
/// callback forms ``playlist(_:query:reply:)`` and ``resource(directory:name:reply:)``. A
/// blocking playlist reload or a request for the hinted part waits on the stream's changes (no polling) and is
/// answered the moment the packager reports the part; after ``BlockingReload/maximumHoldTargetDurations`` target
/// durations it gets 503 (one sweep every ``sweepInterval``, running only while requests are held, ends the holds).
/// An ended stream keeps its playlist (with EXT-X-ENDLIST) for ``Configuration/endedRetention``, or until its ID
/// starts again.
public final class HLSOrigin: Sendable {
    /// How streams are packaged and kept.
    public struct Configuration: Sendable {
        /// Part and segment lengths, window size.
        public var packaging: HLSConfiguration
        /// How long an ended stream's playlist and media stay served.
        public var endedRetention: Duration
        /// How long a request is held before the first segment exists (no target duration yet).
        public var initialHold: Duration
        /// How long a request is held once it does; nil for RFC 8216bis's three target durations.
        public var maximumHold: Duration?

        /// Creates a configuration.
        public init(packaging: HLSConfiguration = HLSConfiguration(), endedRetention: Duration = .seconds(60),
                    initialHold: Duration = .seconds(10), maximumHold: Duration? = nil) {
            self.packaging = packaging
            self.endedRetention = endedRetention
            self.initialHold = initialHold
            self.maximumHold = maximumHold
        }
    }

    /// What the origin holds now, for logs and benchmarks.
    public struct Statistics: Sendable, Equatable {
        /// Streams served (live or recently ended).
        public var streams: Int
        /// Requests waiting for a part or playlist update.
        public var heldRequests: Int
        /// Held requests answered because what they waited for came.
        public var releasedRequests: Int
        /// Held requests answered 503 after the longest hold.
        public var timedOutRequests: Int
    }

    private enum Request: Sendable {
        case playlist(BlockingReload.Directives)
        case resource(ResourceName)
    }

    private struct Waiter {
        let request: Request
        /// Given the reply when released, nil when the hold ends without one.
        let resume: @Sendable (HLSReply?) -> Void
        /// When the hold ends (503).
        let deadline: ContinuousClock.Instant
    }

    private struct Stream {
        var packager: LLHLSPackager
        var waiters: [UInt64: Waiter] = [:]
        var endedAt: ContinuousClock.Instant?
    }

    private struct State {
        var streams: [HLSStreamID: Stream] = [:]
        /// Which stream each epoch (in every resource name) belongs to.
        var epochs: [String: HLSStreamID] = [:]
        var nextWaiter: UInt64 = 0
        var lastEpoch = ""
        /// Whether the expiry sweep runs (only while requests are held).
        var sweeping = false
        var statistics = Statistics(streams: 0, heldRequests: 0, releasedRequests: 0, timedOutRequests: 0)
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let state = Locked(State())

    /// Creates an origin with no stream.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Counters.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.streams = state.streams.count
            statistics.heldRequests = state.streams.values.reduce(0) { $0 + $1.waiters.count }
            return statistics
        }
    }

    /// The streams served now.
    public var streams: [HLSStreamID] {
        state.withLock { Array($0.streams.keys) }
    }

    // MARK: Ingest side

    /// A publish started: a new packager (a previous publish of the same key is replaced).
    public func publishStarted(_ id: HLSStreamID) {
        let released = state.withLock { state -> [(Waiter, HLSReply?)] in
            purgeEnded(&state)
            var epoch = String(Self.wallClock(), radix: 36)
            if epoch <= state.lastEpoch { epoch = state.lastEpoch + "0" }
            state.lastEpoch = epoch
            let previous = state.streams[id]
            if let previous { state.epochs[previous.packager.epoch] = nil }
            state.streams[id] = Stream(packager: LLHLSPackager(epoch: epoch, configuration: configuration.packaging))
            state.epochs[epoch] = id
            // Anyone still waiting on the previous publish is told it is gone.
            return previous.map { $0.waiters.values.map { ($0, HLSReply?.some(.error(404, "the stream restarted"))) } }
                ?? []
        }
        resume(released)
    }

    /// One tag of a publish, as it arrived.
    public func append(_ tag: FLVTag, to id: HLSStreamID) {
        let now = Self.wallClock()
        let released = state.withLock { state -> [(Waiter, HLSReply?)] in
            guard var stream = state.streams.removeValue(forKey: id) else { return [] }
            let events = stream.packager.append(tag, wallClock: now)
            let released = events.isEmpty ? [] : release(&stream)
            state.streams[id] = stream
            state.statistics.releasedRequests += released.count
            return released
        }
        resume(released)
    }

    /// The publish ended: the playlist gets EXT-X-ENDLIST, and every held request is answered.
    public func publishStopped(_ id: HLSStreamID) {
        let released = state.withLock { state -> [(Waiter, HLSReply?)] in
            guard var stream = state.streams.removeValue(forKey: id) else { return [] }
            _ = stream.packager.finish()
            stream.endedAt = .now
            let released = release(&stream)
            state.streams[id] = stream
            return released
        }
        resume(released)
    }

    /// A show's picture switches to another source: see ``LLHLSPackager/beginDiscontinuity()``.
    public func beginDiscontinuity(_ id: HLSStreamID) {
        let released = state.withLock { state -> [(Waiter, HLSReply?)] in
            guard var stream = state.streams.removeValue(forKey: id) else { return [] }
            let events = stream.packager.beginDiscontinuity()
            let released = events.isEmpty ? [] : release(&stream)
            state.streams[id] = stream
            return released
        }
        resume(released)
    }

    // MARK: Player side

    /// The media playlist, at once or when `_HLS_msn`/`_HLS_part` in `query` are satisfied. With `mode=plain` in
    /// the query it is answered at once without its LL-HLS tags (``PlainPlaylist``), as a server of ordinary HLS
    /// would: the comparison the latency measurements make.
    public func playlist(_ id: HLSStreamID, query: String?) async -> HLSReply {
        switch Self.playlistRequest(query: query) {
        case .failure(let error):
            return error.reply
        case .success(let (request, plain)):
            let reply = await answer(request, for: id)
            return plain ? Self.plain(reply) : reply
        }
    }

    /// The media playlist if it can be answered now (as ``playlist(_:query:)`` would, without waiting); nil when
    /// the request must be held: then ask ``playlist(_:query:)``. An HTTP server answers most requests this way on
    /// its event loop, and starts a task only for the held ones.
    public func playlistNow(_ id: HLSStreamID, query: String?) -> HLSReply? {
        switch Self.playlistRequest(query: query) {
        case .failure(let error):
            return error.reply
        case .success(let (request, plain)):
            guard case .reply(let reply) = firstLook(request, for: id) else { return nil }
            return plain ? Self.plain(reply) : reply
        }
    }

    /// An init segment, part or segment by file name; the hinted part is held until it is complete.
    public func resource(_ id: HLSStreamID, name: String) async -> HLSReply {
        guard let resource = ResourceName(parsing: name) else { return .error(404, "no such file") }
        return await answer(.resource(resource), for: id)
    }

    /// An init segment, part or segment by file name, in a directory several streams may share (a show's pictures):
    /// the epoch in the name tells which stream it belongs to.
    public func resource(directory: String, name: String) async -> HLSReply {
        switch resourceRequest(directory: directory, name: name) {
        case .failure(let error): return error.reply
        case .success(let (resource, id)): return await answer(.resource(resource), for: id)
        }
    }

    /// The resource if it can be answered now (as ``resource(directory:name:)`` would, without waiting); nil when
    /// the request must be held (the hinted part): then ask ``resource(directory:name:)``.
    public func resourceNow(directory: String, name: String) -> HLSReply? {
        switch resourceRequest(directory: directory, name: name) {
        case .failure(let error):
            return error.reply
        case .success(let (resource, id)):
            guard case .reply(let reply) = firstLook(.resource(resource), for: id) else { return nil }
            return reply
        }
    }

    /// A playlist request from its query, and whether it asks for the plain playlist; or the error answer.
    private static func playlistRequest(query: String?) -> Result<(Request, Bool), ReplyError> {
        let query = query ?? ""
        // Held only until the first segment exists, like a playlist request without directives.
        if query.split(separator: "&").contains("mode=plain") {
            return .success((.playlist(BlockingReload.Directives()), true))
        }
        do {
            return .success((.playlist(try BlockingReload.Directives(query: query)), false))
        } catch {
            return .failure(ReplyError(.error(400, error.description)))
        }
    }

    /// A resource request by file name in a directory, and the stream it belongs to; or the error answer.
    private func resourceRequest(directory: String, name: String)
        -> Result<(ResourceName, HLSStreamID), ReplyError> {
        guard let resource = ResourceName(parsing: name) else {
            return .failure(ReplyError(.error(404, "no such file")))
        }
        let id = state.withLock { $0.epochs[resource.epoch] }
        guard let id, id.directory == directory else {
            return .failure(ReplyError(.error(404, "no such stream")))
        }
        return .success((resource, id))
    }

    /// `reply` without its LL-HLS tags, for `mode=plain`.
    private static func plain(_ reply: HLSReply) -> HLSReply {
        guard reply.status == 200 else { return reply }
        var reply = reply
        reply.body = Array(PlainPlaylist.strip(String(decoding: reply.body, as: UTF8.self)).utf8)
        return reply
    }

    /// The playlist's text now (nil before the first segment), for tests and tools.
    public func currentPlaylist(_ id: HLSStreamID) -> String? {
        state.withLock { $0.streams[id]?.packager.playlist }
    }

    private enum First: Sendable {
        case reply(HLSReply)
        case wait(holdFor: Duration)
    }

    /// An error answer carried in a `Result`.
    private struct ReplyError: Error {
        let reply: HLSReply
        init(_ reply: HLSReply) { self.reply = reply }
    }

    /// The answer now, or how long the request may be held.
    private func firstLook(_ request: Request, for id: HLSStreamID) -> First {
        state.withLock { state -> First in
            purgeEnded(&state)
            guard let stream = state.streams[id] else { return .reply(.error(404, "no such stream")) }
            if let reply = Self.evaluate(request, stream.packager) { return .reply(reply) }
            guard let target = stream.packager.targetDuration else { return .wait(holdFor: configuration.initialHold) }
            let rfcHold = Duration.seconds(target * BlockingReload.maximumHoldTargetDurations)
            return .wait(holdFor: configuration.maximumHold ?? rfcHold)
        }
    }

    private func answer(_ request: Request, for id: HLSStreamID) async -> HLSReply {
        switch firstLook(request, for: id) {
        case .reply(let reply):
            return reply
        case .wait(let holdFor):
            return await hold(request, for: id, upTo: holdFor)
        }
    }

    /// Waits for the stream to change until `request` can be answered, or the hold ends.
    private func hold(_ request: Request, for id: HLSStreamID, upTo limit: Duration) async -> HLSReply {
        let waiterID = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        // The expiry sweep ends the hold at its deadline (give or take ``sweepInterval``).
        let deadline = ContinuousClock.now + limit
        if let reply = await waitForChange(request, for: id, waiter: waiterID, until: deadline) { return reply }
        // The hold ended (or the request was cancelled): answer with what there is.
        return afterHold(request, for: id, counted: !Task.isCancelled)
    }

    /// The answer to a request whose hold ended without what it waited for; `counted` adds it to the timed-out
    /// requests.
    private func afterHold(_ request: Request, for id: HLSStreamID, counted: Bool) -> HLSReply {
        state.withLock { state -> HLSReply in
            if counted { state.statistics.timedOutRequests += 1 }
            guard let stream = state.streams[id] else { return .error(404, "no such stream") }
            if case .playlist = request, stream.packager.playlist == nil {
                return .error(404, "the stream has no playlist yet")
            }
            return .error(503, "not available within the hold time; ask again")
        }
    }

    /// The answer to `request` through `reply`, at once (on the calling thread) or, when it is held, from the
    /// thread whose change releases it (the ingest's, or the expiry sweep's). No task waits: a server holding many
    /// requests keeps only their callbacks. Returns the cancellation (the client left): the waiter is dropped and
    /// `reply` is not called.
    private func answer(_ request: Request, for id: HLSStreamID,
                        reply: @escaping @Sendable (HLSReply) -> Void) -> @Sendable () -> Void {
        let holdFor: Duration
        switch firstLook(request, for: id) {
        case .reply(let answer):
            reply(answer)
            return {}
        case .wait(let duration):
            holdFor = duration
        }
        let deadline = ContinuousClock.now + holdFor
        let (waiterID, immediate, startSweep) = state.withLock { state -> (UInt64, HLSReply?, Bool) in
            state.nextWaiter += 1
            let waiterID = state.nextWaiter
            guard state.streams[id] != nil else { return (waiterID, .error(404, "no such stream"), false) }
            // It may have changed since the first look.
            if let answer = Self.evaluate(request, state.streams[id]!.packager) { return (waiterID, answer, false) }
            state.streams[id]!.waiters[waiterID] = Waiter(request: request, resume: { [weak self] released in
                guard let released else {
                    if let self { reply(self.afterHold(request, for: id, counted: true)) }
                    return
                }
                reply(released)
            }, deadline: deadline)
            let start = !state.sweeping
            state.sweeping = true
            return (waiterID, nil, start)
        }
        if startSweep { startSweeping() }
        if let immediate {
            reply(immediate)
            return {}
        }
        return { [weak self] in
            _ = self?.state.withLock { state in state.streams[id]?.waiters.removeValue(forKey: waiterID) }
        }
    }

    /// The playlist through `reply`, at once or when held (see ``playlist(_:query:)``), without a task waiting.
    /// - Returns: the cancellation of the hold (the client left); `reply` is then not called.
    public func playlist(_ id: HLSStreamID, query: String?,
                         reply: @escaping @Sendable (HLSReply) -> Void) -> @Sendable () -> Void {
        switch Self.playlistRequest(query: query) {
        case .failure(let error):
            reply(error.reply)
            return {}
        case .success(let (request, plain)):
            return answer(request, for: id) { reply(plain ? Self.plain($0) : $0) }
        }
    }

    /// A resource through `reply`, at once or when held (see ``resource(directory:name:)``), without a task waiting.
    /// - Returns: the cancellation of the hold (the client left); `reply` is then not called.
    public func resource(directory: String, name: String,
                         reply: @escaping @Sendable (HLSReply) -> Void) -> @Sendable () -> Void {
        switch resourceRequest(directory: directory, name: name) {
        case .failure(let error):
            reply(error.reply)
            return {}
        case .success(let (resource, id)):
            return answer(.resource(resource), for: id, reply: reply)
        }
    }

    /// How often held requests are checked for the end of their hold, while there are any: one timer for all of
    /// them (a timer per request costs the server more than the requests themselves).
    static let sweepInterval = DispatchTimeInterval.milliseconds(200)

    /// Starts the expiry sweep; call with `sweeping` just set under the lock.
    private func startSweeping() {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + Self.sweepInterval, repeating: Self.sweepInterval, leeway: .milliseconds(20))
        // The handler holds the timer until it cancels it (cancelling releases the handler).
        timer.setEventHandler { [weak self] in
            guard let self, self.sweep() else {
                timer.cancel()
                return
            }
        }
        timer.resume()
    }

    /// Ends the holds past their deadline.
    /// - Returns: whether requests are still held (else the sweep stops).
    private func sweep() -> Bool {
        let now = ContinuousClock.now
        let (expired, held) = state.withLock { state -> ([Waiter], Bool) in
            var expired: [Waiter] = []
            var held = false
            for id in Array(state.streams.keys) {
                guard state.streams[id]?.waiters.isEmpty == false else { continue }
                for (key, waiter) in state.streams[id]!.waiters where waiter.deadline <= now {
                    state.streams[id]!.waiters[key] = nil
                    expired.append(waiter)
                }
                held = held || state.streams[id]?.waiters.isEmpty == false
            }
            if !held { state.sweeping = false }
            return (expired, held)
        }
        for waiter in expired { waiter.resume(nil) }
        return held
    }

    /// Registers a waiter and suspends until it is released (with a reply), or cancelled or past its deadline (nil).
    private func waitForChange(_ request: Request, for id: HLSStreamID, waiter waiterID: UInt64,
                               until deadline: ContinuousClock.Instant) async -> HLSReply? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HLSReply?, Never>) in
                let (immediate, startSweep) = state.withLock { state -> (HLSReply??, Bool) in
                    // No copy of the stream is kept while its waiters change: that would copy every other waiter.
                    guard state.streams[id] != nil else { return (.some(.error(404, "no such stream")), false) }
                    // It may have changed since the first look, or the wait may already be cancelled.
                    if Task.isCancelled || ContinuousClock.now >= deadline { return (.some(nil), false) }
                    if let reply = Self.evaluate(request, state.streams[id]!.packager) { return (.some(reply), false) }
                    state.streams[id]!.waiters[waiterID] = Waiter(request: request, resume: { continuation.resume(returning: $0) },
                                                                  deadline: deadline)
                    let start = !state.sweeping
                    state.sweeping = true
                    return (.none, start)
                }
                if startSweep { startSweeping() }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                state.streams[id]?.waiters.removeValue(forKey: waiterID)
            }
            waiter?.resume(nil)
        }
    }

    /// The waiters of `stream` that can be answered now, removed from it.
    private func release(_ stream: inout Stream) -> [(Waiter, HLSReply?)] {
        var released: [(Waiter, HLSReply?)] = []
        let position = stream.packager.playlist == nil ? nil : stream.packager.position
        for (key, waiter) in stream.waiters {
            if let reply = Self.evaluate(waiter.request, stream.packager, position: position) {
                stream.waiters[key] = nil
                released.append((waiter, reply))
            }
        }
        return released
    }

    private func resume(_ released: [(Waiter, HLSReply?)]) {
        for (waiter, reply) in released {
            waiter.resume(reply)
        }
    }

    /// The answer to `request` now, or nil to keep waiting.
    private static func evaluate(_ request: Request, _ packager: LLHLSPackager,
                                 position: PlaylistPosition?? = nil) -> HLSReply? {
        switch request {
        case .playlist(let directives):
            let position = position ?? (packager.playlist == nil ? nil : packager.position)
            switch BlockingReload.decide(directives, position: position) {
            case .ready:
                guard let text = packager.playlist else {
                    return .error(404, "the stream ended before its first segment")
                }
                let cache = directives.isBlocking && !packager.isEnded
                    ? HLSCachePolicy.blockingPlaylist(targetDuration: packager.targetDuration ?? 1)
                    : HLSCachePolicy.livePlaylist
                return .playlist(text, cacheControl: cache)
            case .hold:
                return packager.isEnded ? .error(404, "the stream ended before its first segment") : nil
            case .badRequest(let reason):
                return .error(400, reason)
            }
        case .resource(let name):
            switch packager.resource(name) {
            case .available(let bytes): return .media(bytes)
            case .pending: return nil
            case .notFound: return .error(404, "no such part or segment (it may have left the window)")
            }
        }
    }

    /// Drops ended streams kept longer than the retention.
    private func purgeEnded(_ state: inout State) {
        let now = ContinuousClock.now
        for (id, stream) in state.streams {
            if let ended = stream.endedAt, now - ended > configuration.endedRetention, stream.waiters.isEmpty {
                state.streams[id] = nil
                state.epochs[stream.packager.epoch] = nil
            }
        }
    }

    /// Milliseconds since the Unix epoch.
    static func wallClock() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
