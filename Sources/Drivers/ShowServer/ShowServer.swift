#if canImport(Glibc)
import FoundationEssentials
import Dispatch
import Glibc
#else
import Foundation
#endif
import Identity
import IngestServer
import LiveProtocol
import LiveShows
import Locking
import Synchronization
import Transport

/// Live shows served over any message transport (WebSocket in `stream serve`): the protocol of
/// `docs/live-protocol.md` on one side, the ``ShowStore`` on another, and the RTMP ingest's publish checks on
/// the third.
///
/// Shows run on an event loop of their own, one at a time; the store runs on a worker thread that commits every
/// write waiting in one transaction, so a message is acknowledged only after it is committed without a commit
/// per message. Every method here may be called from any thread.
public final class ShowServer: Sendable {
    /// What the server serves and how.
    public struct Configuration: Sendable {
        /// The declared streams.
        public var catalog: StreamCatalog
        /// The secret tokens are checked with; OBS keys and publish grants use keys derived from it.
        public var secret: TokenSecret
        /// Makes the store (called once, on the store's thread).
        public var makeStore: @Sendable () throws(StoreError) -> any ShowStore
        /// Messages kept and sent on join.
        public var historyLimit: Int
        /// Sends one message to many connections at once (by default ``ShowServer/fanOut(_:to:)``).
        public var fanOut: @Sendable ([UInt8], [any ShowConnection]) -> Void
        /// Receives log events (keep it quick).
        public var onEvent: @Sendable (ShowServerEvent) -> Void
        /// Told each show's published tiles and main picture whenever they change (on the shows' loop: keep it
        /// quick), for what packages the pictures (LL-HLS's main playlist follows the host's choice).
        public var onPictures: @Sendable (_ stream: String, _ tiles: [TileKind], _ main: TileKind?) -> Void
        /// How long chat is kept: older messages (but a pinned one) are removed from the store when the server
        /// starts and every ``pruneInterval``; nil keeps everything.
        public var chatRetention: Duration?
        /// How often old chat is looked for.
        public var pruneInterval: Duration
        /// How long a session's media token works (renewed over its connection at half of it).
        public var mediaTokenLifetime: Duration

        /// Creates a configuration.
        public init(catalog: StreamCatalog, secret: TokenSecret,
                    makeStore: @escaping @Sendable () throws(StoreError) -> any ShowStore, historyLimit: Int = 500,
                    fanOut: @escaping @Sendable ([UInt8], [any ShowConnection]) -> Void = ShowServer.fanOut,
                    onEvent: @escaping @Sendable (ShowServerEvent) -> Void = { _ in },
                    onPictures: @escaping @Sendable (String, [TileKind], TileKind?) -> Void = { _, _, _ in },
                    chatRetention: Duration? = .seconds(30 * 86_400), pruneInterval: Duration = .seconds(3600),
                    mediaTokenLifetime: Duration = .seconds(600)) {
            self.catalog = catalog
            self.secret = secret
            self.makeStore = makeStore
            self.historyLimit = historyLimit
            self.fanOut = fanOut
            self.onEvent = onEvent
            self.onPictures = onPictures
            self.chatRetention = chatRetention
            self.pruneInterval = pruneInterval
            self.mediaTokenLifetime = mediaTokenLifetime
        }
    }

    private let loop: EventLoop
    private let worker: StoreWorker
    private let directory = Locked(IngestDirectory())
    private let cutter = Locked<(@Sendable (String, String?) -> Void)?>(nil)
    private let admissions = Locked<[UInt64: IngestDirectory.Ticket]>([:])
    private let nextAdmission = Atomic<UInt64>(1)
    private let disconnector = Locked<(@Sendable (Set<UInt64>) -> Void)?>(nil)
    private let whipCutter = Locked<(@Sendable (String) -> Void)?>(nil)
    /// The declarations in force for checks made off the hub's loop (WHIP admissions): the configuration's until
    /// ``replaceCatalog(_:)``, which changes it and the hub's together.
    private let catalog: Locked<StreamCatalog>
    private let hub: Locked<LoopBound<ShowHub>?> = Locked(nil)
    private let credentials: IngestCredentials
    private let nextSession = Atomic<UInt64>(1)
    private let configuration: Configuration
    private let media: MediaGate

    /// Creates the server; ``start()`` opens the store.
    /// - Throws: ``StoreError`` when the event loop cannot start.
    public init(configuration: Configuration) throws(StoreError) {
        self.configuration = configuration
        catalog = Locked(configuration.catalog)
        do {
            loop = try EventLoop(name: "stream-shows")
        } catch {
            throw StoreError(.unavailable, "cannot start the shows' event loop: \(error)")
        }
        worker = StoreWorker(makeStore: configuration.makeStore)
        let onEvent = configuration.onEvent
        media = MediaGate(secret: configuration.secret, lifetime: configuration.mediaTokenLifetime,
                          onForgotten: { onEvent(.revocationForgotten(ageSeconds: $0)) })
        credentials = IngestCredentials(keyDerivationKey: configuration.secret.derivedKey(for: "stream ingest keys"),
                                        grantKey: configuration.secret.derivedKey(for: "stream publish grants"))
    }

    deinit {
        loop.shutdown()
    }

    /// Opens the store and reads the OBS keys the ingest must know.
    /// - Parameter ingestURL: the RTMP(S) URL hosts publish to, e.g. "rtmp://127.0.0.1:1935/live" (known once the
    ///   ingest listens); nil when there is no ingest (going live is then `unavailable`).
    /// - Throws: ``StoreError`` when the store cannot be opened.
    public func start(ingestURL: String?) async throws(StoreError) {
        let owners: [IngestKeyOwner] = try await withCheckedContinuation { continuation in
            self.worker.submit(.open { continuation.resume(returning: $0) })
        }.get()
        directory.withLock { directory in
            for owner in owners {
                directory.update(owner.show, IngestDirectory.Entry(generation: owner.generation, ended: owner.ended,
                                                                   keyHash: owner.key.hash))
            }
        }
        let configuration = self.configuration
        let worker = self.worker
        let directory = self.directory
        let cutter = self.cutter
        let loop = self.loop
        let media = self.media
        let bound: LoopBound<ShowHub>
        do {
            bound = try await loop.submit { () -> LoopBound<ShowHub> in
                let box = Locked<LoopBound<ShowHub>?>(nil)
                let hub = ShowHub(configuration: configuration, ingestURL: ingestURL, loop: loop, worker: worker,
                                  directory: directory, cutter: cutter, media: media, box: { box.withLock { $0! } })
                let bound = LoopBound(hub, loop: loop)
                box.withLock { $0 = bound }
                hub.startSweeping()
                hub.startRenewingMedia()
                return bound
            }
        } catch {
            throw StoreError(.unavailable, "the shows' event loop stopped: \(error)")
        }
        hub.withLock { $0 = bound }
        if let retention = configuration.chatRetention {
            ChatPruner(retention: retention, interval: configuration.pruneInterval, loop: loop, worker: worker,
                       onEvent: configuration.onEvent).start()
        }
    }

    /// Whether a request for a show's media (an LL-HLS playlist, part or init segment) may have it: its path's
    /// media token must be one this server gave a session of that show, unexpired, its user not banned since.
    /// - Parameters:
    ///   - stream: the show the path names.
    ///   - token: the path's media token; nil when the path has none.
    public func checkMedia(stream: String, token: String?) -> MediaDecision {
        media.check(stream: stream, token: token, now: WallClock.milliseconds())
    }

    /// A stream's status for a show card (docs/live-protocol.md "Status"), as the caller's access token (nil: a
    /// visitor) may see it.
    public func status(of name: String, token: String?) async -> Result<StreamStatus, StatusRefusal> {
        await askHub { hub, answer in hub.status(of: name, token: token, answer: answer) }
    }

    /// The live streams matching `pattern` (`*` for any run of characters) the caller may watch; a pattern that is
    /// not 1 to 128 characters of a stream name's and `*` is refused (400, `invalid`).
    public func liveStreams(matching pattern: String, token: String?) async -> Result<[StreamStatus], StatusRefusal> {
        await askHub { hub, answer in hub.liveStatuses(matching: pattern, token: token, answer: answer) }
    }

    /// What the server counted and holds now, for `GET /metrics` (one hop to the shows' loop; empty once stopped).
    public func metrics() async -> ShowMetrics {
        let worker = self.worker
        let result: Result<ShowMetrics, StatusRefusal> = await askHub { hub, answer in answer(.success(hub.metrics())) }
        var metrics = (try? result.get()) ?? ShowMetrics()
        metrics.storeCommits = worker.commitLatency.withLock { $0 }
        return metrics
    }

    /// Runs `ask` on the hub's loop and waits for the one answer it gives (503 when the server has stopped).
    private func askHub<Value: Sendable>(
        _ ask: @escaping @Sendable (ShowHub, @escaping @Sendable (Result<Value, StatusRefusal>) -> Void) -> Void
    ) async -> Result<Value, StatusRefusal> {
        await withCheckedContinuation { continuation in
            let once = Locked(Optional(continuation))
            let resume: @Sendable (Result<Value, StatusRefusal>) -> Void = { result in
                once.withLock { $0.take() }?.resume(returning: result)
            }
            guard hub.withLock({ $0 }) != nil else {
                return resume(.failure(StatusRefusal(status: 503, error: ShowError(.unavailable, "stopped"))))
            }
            onHub { ask($0, resume) }
        }
    }

    /// Closes every connection (1001), lets the store finish the writes already given to it, and stops.
    public func stop() {
        if let bound = hub.withLock({ value -> LoopBound<ShowHub>? in
            defer { value = nil }
            return value
        }) {
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                bound.value.closeAll()
                done.signal()
            }
            _ = done.wait(timeout: .now() + 5)
        }
        worker.stop()
        loop.shutdown()
    }

    // MARK: Connections

    /// A client connected to a stream.
    /// - Parameters:
    ///   - connection: where its messages go.
    ///   - streamName: the stream name from the URL.
    ///   - token: its access token (`access_token` query or `Bearer` header), nil for a visitor.
    ///   - address: the peer's address without its port, which limits how many new visitor ids it gets.
    /// - Returns: its session id, for ``received(_:from:)`` and ``disconnected(_:)``.
    public func connected(_ connection: any ShowConnection, streamName: String, token: String?,
                          address: String = "") -> SessionID {
        let session = SessionID(nextSession.wrappingAdd(1, ordering: .relaxed).oldValue)
        onHub { $0.connected(session, connection, streamName: streamName, token: token, address: address) }
        return session
    }

    /// A whole text message arrived from a client.
    public func received(_ text: [UInt8], from session: SessionID) {
        onHub { $0.received(text, on: session) }
    }

    /// A binary message arrived: the protocol is text only, so it is refused as malformed.
    public func receivedBinary(from session: SessionID) {
        onHub { $0.receivedBinary(on: session) }
    }

    /// A client's connection closed.
    public func disconnected(_ session: SessionID) {
        onHub { $0.disconnected(session) }
    }

    /// Serves `catalog`'s declarations from now on (the operator reloaded the shows file): a name no pattern matched
    /// before may join at once. A show already loaded keeps the rules it was loaded with until it has no session
    /// left and is unloaded; no session is closed by a reload.
    public func replaceCatalog(_ catalog: StreamCatalog) {
        self.catalog.withLock { $0 = catalog }
        onHub { $0.catalog = catalog }
    }

    private func onHub(_ work: @escaping @Sendable (ShowHub) -> Void) {
        guard let bound = hub.withLock({ $0 }) else { return }
        bound.loop.execute { work(bound.value) }
    }

    // MARK: The ingest

    /// Decides a publish with a stream key: a show's grant or OBS key, or not a show's key at all.
    public func authorizePublish(streamKey: String) -> IngestDirectory.Verdict {
        let now = WallClock.milliseconds()
        return directory.withLock { $0.authorize(streamKey: streamKey, now: now, credentials: credentials) }
    }

    /// An allowed publisher is publishing: its picture goes live.
    public func publishStarted(_ ticket: IngestDirectory.Ticket) {
        directory.withLock { $0.started(ticket) }
        onHub { $0.publish(ticket, started: true) }
    }

    /// An allowed publisher stopped.
    public func publishStopped(_ ticket: IngestDirectory.Ticket) {
        directory.withLock { $0.stopped(ticket) }
        onHub { $0.publish(ticket, started: false) }
    }

    /// Decides a WHIP publish to a show (`POST /v1/streams/{name}/whip`): the bearer is the host's access token or
    /// a `goLive` grant (``ShowWHIPAdmission``). The show is loaded first, so that its generation is known. An
    /// allowed publish goes live with ``publishStarted(_:)`` and ends with ``publishStopped(_:)``, as an RTMP one.
    /// - Parameter replacing: whether the picture's publisher now is a WHIP session the caller will close for this
    ///   one (a host's page publishing again after its path was lost): then a busy picture is no refusal.
    /// - Returns: the ticket, or the refusal (its status is the HTTP one; 503 when the show cannot be loaded).
    public func authorizeWHIP(stream: String, tile: String?, bearer: String?,
                              replacing: Bool = false) async -> Result<IngestDirectory.Ticket,
                                                                       ShowWHIPAdmission.Refusal> {
        let request: ShowWHIPAdmission.Request
        switch ShowWHIPAdmission.check(stream: stream, tile: tile, bearer: bearer, now: WallClock.milliseconds(),
                                       catalog: catalog.withLock { $0 }, secret: configuration.secret,
                                       credentials: credentials) {
        case .success(let checked): request = checked
        case .failure(let refusal): return .failure(refusal)
        }
        let unavailable = ShowWHIPAdmission.Refusal(status: 503, reason: "the show could not be loaded: try again")
        let loaded: Bool = await withCheckedContinuation { continuation in
            let once = Locked(Optional(continuation))
            let resume: @Sendable (Bool) -> Void = { once.withLock { $0.take() }?.resume(returning: $0) }
            guard hub.withLock({ $0 }) != nil else { return resume(false) }
            onHub { $0.whenLoaded(stream, then: { resume(true) }, failed: { resume(false) }) }
        }
        guard loaded else { return .failure(unavailable) }
        return directory.withLock { directory in
            ShowWHIPAdmission.admit(request, entry: directory.entry(stream),
                                    publishing: !replacing && directory.isPublishing(show: stream, tile: request.tile))
        }
    }

    /// Decides a WHEP player of a show (`POST /v1/streams/{name}/whep`): the bearer is the viewer's access token,
    /// a session's media token (as LL-HLS takes it) or nothing (a visitor); the role rule and bans are the show's
    /// (``ShowWHEPAdmission``), the show loaded first.
    /// - Returns: the player's user (nil: a visitor), or the refusal (401, 403, 404; 503 when it cannot load).
    public func authorizeWHEP(stream: String, bearer: String?) async -> Result<String?, ShowWHIPAdmission.Refusal> {
        switch ShowWHEPAdmission.credential(bearer: bearer) {
        case .mediaToken(let token):
            let now = WallClock.milliseconds()
            switch media.check(stream: stream, token: token, now: now) {
            case .allowed: return .success(media.holder(stream: stream, token: token, now: now))
            case .refused(let status, let reason): return .failure(.init(status: status, reason: reason))
            }
        case .visitor, .accessToken:
            let token = bearer.flatMap { $0.isEmpty ? nil : $0 }
            switch await status(of: stream, token: token) {
            case .failure(let refusal):
                return .failure(.init(status: refusal.status, reason: refusal.error.reason))
            case .success:
                // The status check verified the token; its subject names the player for a later ban.
                let user = token.flatMap { try? AccessToken.verify($0, secret: configuration.secret,
                                                                    now: WallClock.milliseconds() / 1000).subject }
                return .success(user)
            }
        }
    }

    /// Sets what ends a user's WHEP players of a show when a ban revokes their media tokens.
    public func setMediaRevoker(_ revoke: @escaping @Sendable (_ show: String, _ user: String) -> Void) {
        media.onRevoked.withLock { $0 = revoke }
    }

    /// The RTMP ingest's gate for shows' keys: publish grants and OBS keys are decided here, other keys pass to
    /// the ingest's own rules. Set it as the ingest's ``RTMPServer/Configuration/publishGate`` and give the
    /// ingest's ``RTMPServer/disconnectPublishers(admittedAs:)`` to ``setPublisherDisconnector(_:)``.
    public func publishGate() -> PublishGate {
        PublishGate(authorize: { [self] _, key in
            switch authorizePublish(streamKey: key) {
            case .notAShowKey:
                return .pass
            case .refuse(let reason):
                return .refuse(reason)
            case .allow(let ticket):
                let id = nextAdmission.wrappingAdd(1, ordering: .relaxed).oldValue
                admissions.withLock { $0[id] = ticket }
                return .allow(id)
            }
        }, started: { [self] id in
            if let ticket = admissions.withLock({ $0[id] }) { publishStarted(ticket) }
        }, stopped: { [self] id in
            if let ticket = admissions.withLock({ $0.removeValue(forKey: id) }) { publishStopped(ticket) }
        })
    }

    /// Sets what ends a show's WHIP pictures (those ``authorizeWHIP(stream:tile:bearer:)`` admitted) when the host
    /// ends the show, as the ingest's publishers are cut.
    public func setWHIPCutter(_ cut: @escaping @Sendable (_ show: String) -> Void) {
        whipCutter.withLock { $0 = cut }
    }

    /// Sets what disconnects the publishers the gate admitted (the ingest's `disconnectPublishers`).
    public func setPublisherDisconnector(_ disconnect: @escaping @Sendable (Set<UInt64>) -> Void) {
        disconnector.withLock { $0 = disconnect }
        let admissions = self.admissions
        let disconnector = self.disconnector
        let whipCutter = self.whipCutter
        cutter.withLock {
            $0 = { show, keyHash in
                // WHIP pictures have no OBS key: only the end of the show (every picture) cuts them.
                if keyHash == nil { whipCutter.withLock { $0 }?(show) }
                let ids = admissions.withLock { admitted in
                    Set(admitted.filter { $0.value.show == show && (keyHash == nil || $0.value.keyHash == keyHash) }
                        .keys)
                }
                if !ids.isEmpty { disconnector.withLock { $0 }?(ids) }
            }
        }
    }
}
