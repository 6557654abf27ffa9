import FLV
#if canImport(Glibc)
import FoundationEssentials
#else
import Foundation
#endif
import HLS
import Locking
import Transport

/// The LL-HLS origin of a server: one ``LLHLSPackager`` per published stream, fed by the ingest, and the answers
/// to players' requests, held until what they ask for exists.
///
/// The ingest calls ``publishStarted(_:)``, ``append(_:to:)`` and ``publishStopped(_:)`` on its loop thread. An HTTP
/// server looks a request up once, without a task (``playlistLookup(_:query:)``, ``resourceLookup(directory:name:)``),
/// and passes what must wait to ``hold(_:reply:)``; ``playlist(_:query:)`` and ``resource(_:name:)`` answer a task,
/// ``playlistNow(_:query:)`` and ``resourceNow(directory:name:)`` only what can be answered at once,
/// ``playlist(_:query:reply:)`` through a callback. A blocking playlist reload or a request for the hinted part waits
/// on the stream's changes (no polling) and is answered the moment the packager reports the part; after
/// ``BlockingReload/maximumHoldTargetDurations`` target durations it gets 503. Each stream's held requests are a
/// ``HoldTable``, which decides what a change or the passing of time answers; the origin feeds it and runs one timer,
/// on an event loop, for the earliest end of a hold while requests are held. An ended stream keeps its playlist
/// (with EXT-X-ENDLIST) for ``Configuration/endedRetention``, or until its ID starts again.
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

    fileprivate typealias Table = HoldTable<Waiter>
    fileprivate typealias Request = Table.Request

    /// What to do with a player's request, found with one parse of it and one look at the stream: answer it now,
    /// or hold it (``hold(_:reply:)``).
    public enum Lookup: Sendable {
        /// The answer, now.
        case reply(HLSReply)
        /// What the request waits for: pass it to ``hold(_:reply:)``.
        case hold(Hold)
    }

    /// A request to hold, as ``playlistLookup(_:query:)`` or ``resourceLookup(directory:name:)`` parsed it.
    public struct Hold: Sendable {
        fileprivate let request: Request
        fileprivate let id: HLSStreamID
        /// `mode=plain`: the playlist without its LL-HLS tags.
        fileprivate let plain: Bool
        /// How long it may be held.
        fileprivate let limit: Duration
    }

    /// A held request: a class, so that the passes over a stream's waiters (release, expiry) retain one reference
    /// per waiter instead of copying its request and callback. It carries everything its answer needs, so that
    /// holding a server's request makes one object: no closure around the callback, none for the cancellation.
    fileprivate final class Waiter: Sendable {
        let request: Request
        /// Told the answer (``HLSOrigin/hold(_:reply:)``): the reply, without its LL-HLS tags for `mode=plain`; a
        /// hold that ends without one is answered 503 or 404 here.
        let reply: @Sendable (HLSReply) -> Void
        let plain: Bool
        /// Held strongly, as only while the request is held (the pending response drops the cancellation once
        /// answered).
        let origin: HLSOrigin
        /// The stream and the key it is kept under there.
        let id: HLSStreamID
        let key: UInt64

        init(request: Request, reply: @escaping @Sendable (HLSReply) -> Void, plain: Bool, origin: HLSOrigin,
             id: HLSStreamID, key: UInt64) {
            self.request = request
            self.reply = reply
            self.plain = plain
            self.origin = origin
            self.id = id
            self.key = key
        }

        /// Called once, by the origin, with the reply that released it (lent: the waiters released together share
        /// one, not a copy each), or through ``endHold()``.
        func resume(_ released: HLSReply) {
            reply(plain ? HLSOrigin.plain(released) : released)
        }

        /// The hold is cut short (a cancelled task): answered 503 or 404, not counted as timed out.
        func endHold() {
            resume(origin.afterHold(request, for: id))
        }

        /// The client left: the waiter is dropped and its callback is not called.
        /// - Returns: whether it was still held (false when it was already answered or is being answered).
        @discardableResult
        func cancel() -> Bool {
            origin.state.withLock { state in state.streams[id]?.holds.cancel(key) } != nil
        }
    }

    /// A packaged stream and its held requests: a class, so that finding it in the table and changing it never
    /// copies it (a copy of a struct retained every part and waiter: ~10 % of the server's samples with 400 held
    /// requests). Touched only under the origin's lock.
    private final class Stream {
        private(set) var packager: LLHLSPackager
        /// The requests held until the stream has what they ask for, or their hold ends.
        var holds = Table()
        var endedAt: ContinuousClock.Instant?
        /// Requests looked up for this stream (its address's, carried over when a publish to it starts again), for
        /// `/metrics`: counted under the lock the lookup takes anyway.
        var requests = 0
        /// What the requests are answered from, made from the packager at most once per change of it and shared by
        /// every request until the next change: the playlist's position and its bytes (one copy of the text per
        /// part, not one per reader).
        private var derived = Derived()

        private struct Derived {
            /// nil until asked for; then the position (nil before the first segment).
            var position: PlaylistPosition??
            var isEnded: Bool?
            var livePlaylist: HLSReply?
            var blockingPlaylist: HLSReply?
            /// What the resources asked for since the change are (the part 200 readers wait for is looked up in the
            /// packager once): at most ``Stream/maximumCachedResources``, emptied at each change.
            var resources: [ResourceName: ResourceLookup] = [:]
        }

        init(packager: LLHLSPackager) {
            self.packager = packager
        }

        /// Changes the packager; what was derived from it is made again when next asked for.
        func change(_ body: (inout LLHLSPackager) -> [HLSEvent]) -> [HLSEvent] {
            derived = Derived()
            return body(&packager)
        }

        /// Packages a tag. One that completes no part changes nothing a request sees: what was derived stays.
        func append(_ tag: FLVTag, wallClock: Int64) -> [HLSEvent] {
            let events = packager.append(tag, wallClock: wallClock)
            if !events.isEmpty { derived = Derived() }
            return events
        }

        /// Where the playlist stands; nil before the first segment.
        func position() -> PlaylistPosition? {
            if let position = derived.position { return position }
            let position = packager.playlist == nil ? nil : packager.position
            derived.position = .some(position)
            return position
        }

        /// The most resource answers kept between two changes of the packager (a part is ~100 KB, shared with the
        /// packager: the table holds references, not copies).
        static let maximumCachedResources = 64

        /// Whether the playlist has EXT-X-ENDLIST (a method call on the packager copies it: asked once per change).
        private func isEnded() -> Bool {
            if let isEnded = derived.isEnded { return isEnded }
            let isEnded = packager.isEnded
            derived.isEnded = isEnded
            return isEnded
        }

        /// Whether the playlist exists (the first segment is complete).
        var hasPlaylist: Bool { packager.playlist != nil }

        /// What a request gets at its first look.
        enum Look {
            case reply(HLSReply)
            /// Hold it; the target duration (nil before the first segment) bounds the hold.
            case wait(targetDuration: Int?)
        }

        /// The answer to `request` now, or the hold.
        func look(_ request: Request) -> Look {
            if let answer = Table.answer(request, position: position(), isEnded: isEnded(), resource: lookUp) {
                return .reply(reply(answer))
            }
            return .wait(targetDuration: packager.targetDuration)
        }

        /// The answer to `request` now, or `.wait` after keeping `waiter` under `key` until the stream can answer it.
        /// - Returns: also when the earliest hold of the stream ends (nil when answered).
        func answerOrKeep(_ request: Request, key: UInt64, waiter: Waiter,
                          deadline: Duration) -> (look: Look, nextDeadline: Duration?) {
            switch holds.hold(request, key: key, waiter: waiter, deadline: deadline, position: position(),
                              isEnded: isEnded(), resource: lookUp) {
            case .answer(let answer):
                return (.reply(reply(answer)), nil)
            case .held(let next):
                return (.wait(targetDuration: packager.targetDuration), next)
            }
        }

        /// Ends the holds whose time is up by `now`.
        func expire(_ now: Duration) -> [Released] {
            holds.expire(now: now, hasPlaylist: hasPlaylist).releases.map(released)
        }

        /// The waiters that can be answered now, removed, grouped by the reply they get. They share the stream's
        /// replies: one playlist's bytes for every blocking reload it satisfies, the packager's bytes for every reader
        /// of a part.
        func release() -> [Released] {
            guard !holds.isEmpty else { return [] }
            return holds.release(position: position(), isEnded: isEnded(), resource: lookUp).releases.map(released)
        }

        /// Every held request removed, to be answered `answer`.
        func removeAll(answer: Table.Answer) -> [Released] {
            holds.removeAll(answer: answer).releases.map(released)
        }

        private func released(_ release: Table.Release) -> Released {
            Released(reply: reply(release.answer), waiters: release.waiters)
        }

        /// What the packager has under `name`, looked up once per change of it.
        private func lookUp(_ name: ResourceName) -> ResourceLookup {
            if let found = derived.resources[name] { return found }
            let found = packager.resource(name)
            // Names no one asks for twice (a scan of made-up numbers) are not kept past the bound.
            if derived.resources.count < Self.maximumCachedResources { derived.resources[name] = found }
            return found
        }

        /// The reply that says `answer`.
        func reply(_ answer: Table.Answer) -> HLSReply {
            switch answer {
            case .playlist(let blocking):
                return playlistReply(blocking: blocking) ?? .error(404, "the stream ended before its first segment")
            case .media(let name):
                guard case .available(let bytes) = lookUp(name) else { return .error(404, "no such part or segment") }
                return .media(bytes)
            case .badRequest(let reason):
                return .error(400, reason)
            case .notFound(let reason):
                return .error(404, reason)
            case .unavailable:
                return .error(503, "not available within the hold time; ask again")
            }
        }

        /// The playlist's reply, made once per change (a blocking reload's may be cached by a CDN, RFC 8216bis
        /// §6.2.5.2; a plain reload's may not).
        private func playlistReply(blocking: Bool) -> HLSReply? {
            if let reply = blocking ? derived.blockingPlaylist : derived.livePlaylist { return reply }
            guard let text = packager.playlist else { return nil }
            let bytes = derived.livePlaylist?.body ?? derived.blockingPlaylist?.body ?? Array(text.utf8)
            let reply = HLSReply.playlist(bytes, cacheControl: blocking
                ? HLSCachePolicy.blockingPlaylist(targetDuration: packager.targetDuration ?? 1)
                : HLSCachePolicy.livePlaylist)
            if blocking { derived.blockingPlaylist = reply } else { derived.livePlaylist = reply }
            return reply
        }
    }

    /// Held requests released together: each gets `reply`.
    private struct Released {
        let reply: HLSReply
        var waiters: [Waiter]
    }

    private struct State {
        var streams: [HLSStreamID: Stream] = [:]
        /// Which stream each epoch (in every resource name) belongs to.
        var epochs: [String: HLSStreamID] = [:]
        var nextWaiter: UInt64 = 0
        var lastEpoch = ""
        /// How many streams have ended and wait out their retention: the purge looks only when some have (it is
        /// called on every request).
        var endedStreams = 0
        /// The expiry sweep's timer, while requests are held, and when it is armed for.
        var sweep: Scheduled?
        var sweepAt: Duration?
        var statistics = Statistics(streams: 0, heldRequests: 0, releasedRequests: 0, timedOutRequests: 0)
    }

    /// How the holds learn the time and end on time.
    enum HoldClock: Sendable {
        /// The monotonic clock; the sweep runs on `loop` (nil: the process's shared client loop, started when a
        /// request is first held).
        case loop(EventLoop?)
        /// For tests: the time is what `now` says, and no timer runs (``endExpiredHolds()`` is the sweep).
        case manual(now: @Sendable () -> Duration)
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let state = Locked(State())
    private let clock: HoldClock
    /// What the holds' times count from.
    private let start = ContinuousClock.now

    /// Creates an origin with no stream.
    /// - Parameter loop: where the timer that ends holds runs; nil for the process's shared client loop.
    public convenience init(configuration: Configuration = Configuration(), loop: EventLoop? = nil) {
        self.init(configuration: configuration, clock: .loop(loop))
    }

    init(configuration: Configuration, clock: HoldClock) {
        self.configuration = configuration
        self.clock = clock
    }

    /// The holds' time now: since the origin was made.
    private func now() -> Duration {
        switch clock {
        case .loop: start.duration(to: .now)
        case .manual(let now): now()
        }
    }

    /// Counters.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.streams = state.streams.count
            statistics.heldRequests = state.streams.values.reduce(0) { $0 + $1.holds.count }
            return statistics
        }
    }

    /// How many requests (playlists, multivariant playlists, parts, segments) each stream served now was asked,
    /// since its address was first published in this process (a restarted publish goes on counting).
    public var requestCounts: [HLSStreamID: Int] {
        state.withLock { state in state.streams.mapValues(\.requests) }
    }

    /// The streams served now.
    public var streams: [HLSStreamID] {
        state.withLock { Array($0.streams.keys) }
    }

    // MARK: Ingest side

    /// A publish started: a new packager (a previous publish of the same key is replaced).
    public func publishStarted(_ id: HLSStreamID) {
        let released = state.withLock { state -> [Released] in
            purgeEnded(&state)
            var epoch = String(Self.wallClock(), radix: 36)
            if epoch <= state.lastEpoch { epoch = state.lastEpoch + "0" }
            state.lastEpoch = epoch
            let previous = state.streams[id]
            if let previous {
                state.epochs[previous.packager.epoch] = nil
                if previous.endedAt != nil { state.endedStreams -= 1 }
            }
            // The fragments' sequence numbers go on from the previous publish's: a player that keeps the address
            // (a show's main picture whose last tile came back) never sees them go back.
            let stream = Stream(packager: LLHLSPackager(
                epoch: epoch, configuration: configuration.packaging,
                firstFragmentSequence: previous?.packager.nextFragmentSequence ?? 1))
            stream.requests = previous?.requests ?? 0
            state.streams[id] = stream
            state.epochs[epoch] = id
            // Anyone still waiting on the previous publish is told it is gone.
            return previous?.removeAll(answer: .notFound("the stream restarted")) ?? []
        }
        resume(released)
    }

    /// One tag of a publish, as it arrived.
    public func append(_ tag: FLVTag, to id: HLSStreamID) {
        let now = Self.wallClock()
        let released = state.withLock { state -> [Released] in
            guard let stream = state.streams[id] else { return [] }
            let events = stream.append(tag, wallClock: now)
            let released = events.isEmpty ? [] : stream.release()
            state.statistics.releasedRequests += released.reduce(0) { $0 + $1.waiters.count }
            return released
        }
        resume(released)
    }

    /// The publish ended: the playlist gets EXT-X-ENDLIST, and every held request is answered.
    public func publishStopped(_ id: HLSStreamID) {
        let released = state.withLock { state -> [Released] in
            guard let stream = state.streams[id] else { return [] }
            _ = stream.change { $0.finish() }
            if stream.endedAt == nil { state.endedStreams += 1 }
            stream.endedAt = .now
            let released = stream.release()
            return released
        }
        resume(released)
    }

    /// A show's picture switches to another source: see ``LLHLSPackager/beginDiscontinuity()``.
    public func beginDiscontinuity(_ id: HLSStreamID) {
        let released = state.withLock { state -> [Released] in
            guard let stream = state.streams[id] else { return [] }
            let events = stream.change { $0.beginDiscontinuity() }
            let released = events.isEmpty ? [] : stream.release()
            return released
        }
        resume(released)
    }

    // MARK: Player side

    /// The multivariant playlist of a stream (``MultivariantPlaylist``), its one variant the media playlist
    /// `uri` beside it: 404 for a stream that is not served, 503 (retry in a second) before its first segment.
    public func multivariant(_ id: HLSStreamID, uri: String) -> HLSReply {
        state.withLock { state in
            guard let stream = state.streams[id] else { return .error(404, "no such stream") }
            stream.requests += 1
            guard let variant = stream.packager.variant else {
                return .error(503, "the stream has no complete segment yet: ask again in a second")
            }
            return .playlist(Array(MultivariantPlaylist.render(variant, uri: uri).utf8),
                             cacheControl: HLSCachePolicy.livePlaylist)
        }
    }

    /// A media playlist request, parsed once and looked up once: the answer now (most requests, answered on the
    /// HTTP server's event loop), or what to hold (``hold(_:reply:)``) until `_HLS_msn`/`_HLS_part` in `query` are
    /// satisfied. With `mode=plain` in the query it is answered at once without its LL-HLS tags
    /// (``PlainPlaylist``), as a server of ordinary HLS would: the comparison the latency measurements make.
    public func playlistLookup(_ id: HLSStreamID, query: String?) -> Lookup {
        switch Self.playlistRequest(query: query) {
        case .failure(let error):
            return .reply(error.reply)
        case .success(let (request, plain)):
            return look(request, in: .id(id), plain: plain)
        }
    }

    /// An init segment, part or segment by file name, in a directory several streams may share (a show's pictures):
    /// the epoch in the name tells which stream it belongs to. The answer now, or what to hold (the hinted part).
    public func resourceLookup(directory: String, name: String) -> Lookup {
        guard let resource = ResourceName(parsing: name) else { return .reply(.error(404, "no such file")) }
        return look(.resource(resource), in: .directory(directory), plain: false)
    }

    /// Holds a request a lookup could not answer yet: `reply` is called once, from the thread whose change releases
    /// it (the ingest's, or the expiry sweep's), or at once if the stream changed since the lookup. No task waits:
    /// a server holding many requests keeps only their callbacks.
    /// - Returns: the cancellation of the hold (the client left): the waiter is dropped and `reply` is not called.
    public func hold(_ hold: Hold, reply: @escaping @Sendable (HLSReply) -> Void) -> @Sendable () -> Void {
        guard let waiter = keep(hold, reply: reply) else { return {} }
        // One reference captured: the waiter is the closure's context (no allocation).
        return { waiter.cancel() }
    }

    /// ``hold(_:reply:)``'s waiter, or nil when `reply` was called at once.
    private func keep(_ hold: Hold, reply: @escaping @Sendable (HLSReply) -> Void) -> Waiter? {
        let (request, id) = (hold.request, hold.id)
        let now = now()
        let (waiter, immediate) = state.withLock { state -> (Waiter?, HLSReply?) in
            guard let stream = state.streams[id] else { return (nil, .error(404, "no such stream")) }
            state.nextWaiter += 1
            let waiterID = state.nextWaiter
            let waiter = Waiter(request: request, reply: reply, plain: hold.plain, origin: self, id: id, key: waiterID)
            // It may have changed since the lookup.
            let (look, next) = stream.answerOrKeep(request, key: waiterID, waiter: waiter, deadline: now + hold.limit)
            switch look {
            case .reply(let answer): return (nil, answer)
            case .wait: break
            }
            if let next { armSweep(&state, at: next, now: now) }
            return (waiter, nil)
        }
        if waiter == nil {
            let answer = immediate ?? .error(404, "no such stream")
            reply(hold.plain ? Self.plain(answer) : answer)
        }
        return waiter
    }

    /// The media playlist, at once or when held (see ``playlistLookup(_:query:)``), from a task.
    public func playlist(_ id: HLSStreamID, query: String?) async -> HLSReply {
        await answer(playlistLookup(id, query: query))
    }

    /// The media playlist if it can be answered now; nil when the request must be held.
    public func playlistNow(_ id: HLSStreamID, query: String?) -> HLSReply? {
        guard case .reply(let reply) = playlistLookup(id, query: query) else { return nil }
        return reply
    }

    /// An init segment, part or segment of stream `id` by file name; the hinted part is held until it is complete.
    public func resource(_ id: HLSStreamID, name: String) async -> HLSReply {
        guard let resource = ResourceName(parsing: name) else { return .error(404, "no such file") }
        return await answer(look(.resource(resource), in: .id(id), plain: false))
    }

    /// The resource if it can be answered now; nil when the request must be held (the hinted part).
    public func resourceNow(directory: String, name: String) -> HLSReply? {
        guard case .reply(let reply) = resourceLookup(directory: directory, name: name) else { return nil }
        return reply
    }

    /// The playlist through `reply`, at once or when held, without a task waiting.
    /// - Returns: the cancellation of the hold (the client left); `reply` is then not called.
    public func playlist(_ id: HLSStreamID, query: String?,
                         reply: @escaping @Sendable (HLSReply) -> Void) -> @Sendable () -> Void {
        answer(playlistLookup(id, query: query), reply: reply)
    }

    private func answer(_ lookup: Lookup, reply: @escaping @Sendable (HLSReply) -> Void) -> @Sendable () -> Void {
        switch lookup {
        case .reply(let answer):
            reply(answer)
            return {}
        case .hold(let held):
            return hold(held, reply: reply)
        }
    }

    private func answer(_ lookup: Lookup) async -> HLSReply {
        switch lookup {
        case .reply(let reply):
            return reply
        case .hold(let held):
            // The server's hold, with a task's cancellation: a cancelled task is answered at once with what there
            // is (not counted as timed out), unless its answer is already on its way.
            let waiting = Locked(HeldByTask())
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<HLSReply, Never>) in
                    let waiter = keep(held) { continuation.resume(returning: $0) }
                    let cancelled = waiting.withLock { waiting -> Bool in
                        waiting.waiter = waiter
                        return waiting.cancelled
                    }
                    if cancelled, let waiter, waiter.cancel() { waiter.endHold() }
                }
            } onCancel: {
                let waiter = waiting.withLock { waiting -> Waiter? in
                    waiting.cancelled = true
                    return waiting.waiter
                }
                if let waiter, waiter.cancel() { waiter.endHold() }
            }
        }
    }

    /// A task's hold: its waiter once kept, and whether the task was cancelled (either may come first).
    private struct HeldByTask {
        var waiter: Waiter?
        var cancelled = false
    }

    /// A playlist request from its query, and whether it asks for the plain playlist; or the error answer.
    private static func playlistRequest(query: String?) -> Result<(Request, Bool), ReplyError> {
        guard let query, !query.isEmpty else { return .success((.playlist(BlockingReload.Directives()), false)) }
        // Held only until the first segment exists, like a playlist request without directives.
        if hasPlainMode(query) {
            return .success((.playlist(BlockingReload.Directives()), true))
        }
        do {
            return .success((.playlist(try BlockingReload.Directives(query: query)), false))
        } catch {
            return .failure(ReplyError(.error(400, error.description)))
        }
    }

    /// Whether one of the query's `&`-separated items is `mode=plain` (without splitting it into an array: asked of
    /// every playlist request).
    private static func hasPlainMode(_ query: String) -> Bool {
        let utf8 = query.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            if utf8[start..<end].elementsEqual("mode=plain".utf8) { return true }
            start = end == utf8.endIndex ? end : utf8.index(after: end)
        }
        return false
    }

    /// Which stream a request is for: named, or found from the epoch in a resource's name within a directory.
    private enum StreamTarget {
        case id(HLSStreamID)
        case directory(String)
    }

    /// One look at the stream, under one lock: the answer now, or the hold.
    private func look(_ request: Request, in target: StreamTarget, plain: Bool) -> Lookup {
        state.withLock { state -> Lookup in
            purgeEnded(&state)
            let id: HLSStreamID
            switch target {
            case .id(let given):
                id = given
            case .directory(let directory):
                guard case .resource(let name) = request, let found = state.epochs[name.epoch],
                      found.directory == directory else { return .reply(.error(404, "no such stream")) }
                id = found
            }
            let stream = state.streams[id]
            stream?.requests += 1
            switch stream?.look(request) {
            case nil:
                return .reply(.error(404, "no such stream"))
            case .reply(let reply):
                return .reply(plain ? Self.plain(reply) : reply)
            case .wait(let targetDuration):
                guard let targetDuration else {
                    return .hold(Hold(request: request, id: id, plain: plain, limit: configuration.initialHold))
                }
                let rfcHold = Duration.seconds(targetDuration * BlockingReload.maximumHoldTargetDurations)
                return .hold(Hold(request: request, id: id, plain: plain, limit: configuration.maximumHold ?? rfcHold))
            }
        }
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

    /// An error answer carried in a `Result`.
    private struct ReplyError: Error {
        let reply: HLSReply
        init(_ reply: HLSReply) { self.reply = reply }
    }

    /// The answer to a held request whose hold is cut short (its task was cancelled): not counted as timed out.
    private func afterHold(_ request: Request, for id: HLSStreamID) -> HLSReply {
        state.withLock { state -> HLSReply in
            guard let stream = state.streams[id] else { return .error(404, "no such stream") }
            return stream.reply(Table.ended(request, hasPlaylist: stream.hasPlaylist))
        }
    }

    /// The least wait between two sweeps (holds that end within it of each other end in one sweep).
    static let sweepLeeway = Duration.milliseconds(10)

    /// Arms the expiry sweep for `instant`, unless it is armed for earlier; under the lock. One timer for all the
    /// held requests (a timer per request costs the server more than the requests themselves), armed for the earliest
    /// end of a hold rather than firing at a fixed rate: held requests are answered within a part, so the sweep wakes
    /// about once per hold time.
    private func armSweep(_ state: inout State, at instant: Duration, now: Duration) {
        if let armed = state.sweepAt, armed <= instant { return }
        state.sweepAt = instant
        state.sweep?.cancel()
        guard case .loop(let given) = clock else { return }
        let loop: EventLoop
        do {
            loop = try given ?? EventLoop.sharedClient()
        } catch {
            // No thread for the shared loop: holds still end with their stream's parts, not on time.
            state.sweepAt = nil
            return
        }
        // The timer holds the origin until it runs or is cancelled (when no request is held): holds end on time
        // even if the server let go of it.
        state.sweep = loop.schedule(after: max(.zero, instant - now)) { self.sweep() }
    }

    /// Ends the holds past their deadline (the sweep's timer, or a test's manual clock), and arms the sweep for the
    /// next (or stops it when none is held).
    func endExpiredHolds() {
        sweep()
    }

    private func sweep() {
        let now = now()
        let expired = state.withLock { state -> [Released] in
            state.sweepAt = nil
            state.sweep = nil
            var expired: [Released] = []
            var next: Duration?
            for stream in state.streams.values where !stream.holds.isEmpty {
                expired += stream.expire(now)
                if let earliest = stream.holds.nextDeadline { next = min(next ?? earliest, earliest) }
            }
            state.statistics.timedOutRequests += expired.reduce(0) { $0 + $1.waiters.count }
            if let next { armSweep(&state, at: max(next, now + Self.sweepLeeway), now: now) }
            return expired
        }
        resume(expired)
    }

    private func resume(_ released: [Released]) {
        for group in released {
            for waiter in group.waiters {
                waiter.resume(group.reply)
            }
        }
    }

    /// Drops ended streams kept longer than the retention.
    private func purgeEnded(_ state: inout State) {
        guard state.endedStreams > 0 else { return }
        let now = ContinuousClock.now
        for (id, stream) in state.streams {
            if let ended = stream.endedAt, now - ended > configuration.endedRetention, stream.holds.isEmpty {
                state.streams[id] = nil
                state.epochs[stream.packager.epoch] = nil
                state.endedStreams -= 1
            }
        }
    }

    /// Milliseconds since the Unix epoch.
    static func wallClock() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
