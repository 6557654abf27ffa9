import ByteIO
import Identity
import LiveProtocol
import LiveShows
import Locking
import Transport

/// The loop-thread side of the show server: connections, the shows in memory, and the effects they ask for.
/// Every method runs on the show server's event loop.
final class ShowHub {
    /// A connection that sent more than this many malformed or refused-before-join messages is dropped.
    static let malformedLimit = 20
    /// How often shows that no longer need memory are looked for.
    static let sweepInterval: Duration = .seconds(5)

    struct Client {
        var connection: any ShowConnection
        var streamName: String
        var token: String?
        /// The peer's address without its port ("" when the transport has none): visitors' new ids are limited by it.
        var address: String
        /// The show it joined (or is joining, while that show loads).
        var show: String?
        var joined = false
        var malformed = 0
        /// The close code and reason for the close that follows, from the last reply or `ended` sent: the reason is
        /// the error code or the end's reason (`banned`, `kicked`, `left`), as refused joins close.
        var closeCode = ShowCloseCode.normal
        var closeReason = EndReason.left.rawValue
        /// Once joined: the user its media tokens are for (nil: a visitor), and when the last one expires.
        var media: (user: String?, expiresAt: Int64)?
        /// A visitor's identity, given in its welcome to keep.
        var visitor: VisitorPass?
    }

    let configuration: ShowServer.Configuration
    /// The declarations in force: the configuration's until the operator reloads the shows file.
    var catalog: StreamCatalog
    let showConfiguration: ShowConfiguration
    let loop: EventLoop
    let worker: StoreWorker
    let directory: Locked<IngestDirectory>
    let cutter: Locked<(@Sendable (String, String?) -> Void)?>
    let media: MediaGate
    /// Signs and checks visitor tokens (``VisitorPass``).
    private let visitorKey: [UInt8]
    private var visitorAdmission = VisitorAdmission()
    private let hubBox: () -> LoopBound<ShowHub>

    private var clients: [SessionID: Client] = [:]
    private var shows: [String: Show] = [:]
    private var members: [String: [SessionID: any ShowConnection]] = [:]
    /// Each show's members as one array, made again after any change: broadcasts do not build it each time.
    private var audiences: [String: [any ShowConnection]] = [:]
    /// Work waiting for a show to load.
    private var loading: [String: [ShowWork]] = [:]
    private var tick: (at: Int64, timer: Scheduled)?
    private var sweepTimer: Scheduled?
    private var renewTimer: Scheduled?
    /// What `/metrics` reads (``ShowMetrics``): counted here, on the loop, as plain integers.
    private var counters = ShowCounters()
    /// Since when each live show is live and its most viewers so far, for its end's event: one entry per live show,
    /// removed when it ends.
    private var liveSince: [String: (since: Int64, peakViewers: Int)] = [:]
    /// The pictures each show publishes, to tell which started or stopped: removed when none is.
    private var publishedTiles: [String: Set<TileKind>] = [:]

    init(configuration: ShowServer.Configuration, ingestURL: String?, loop: EventLoop, worker: StoreWorker,
         directory: Locked<IngestDirectory>, cutter: Locked<(@Sendable (String, String?) -> Void)?>,
         media: MediaGate, box: @escaping () -> LoopBound<ShowHub>) {
        self.configuration = configuration
        catalog = configuration.catalog
        self.loop = loop
        self.worker = worker
        self.directory = directory
        self.cutter = cutter
        self.media = media
        self.hubBox = box
        visitorKey = configuration.secret.derivedKey(for: "stream visitor ids")
        var showConfiguration = ShowConfiguration(
            ingestURL: ingestURL,
            credentials: IngestCredentials(keyDerivationKey: configuration.secret.derivedKey(for: "stream ingest keys"),
                                           grantKey: configuration.secret.derivedKey(for: "stream publish grants")))
        showConfiguration.historyLimit = configuration.historyLimit
        self.showConfiguration = showConfiguration
    }

    var sessionCount: Int { clients.count }

    func startSweeping() {
        sweepTimer = loop.scheduleOnLoop(after: Self.sweepInterval) { [weak self] in
            guard let self else { return }
            sweep(now: WallClock.milliseconds())
            startSweeping()
        }
    }

    /// Renews media tokens at half their lifetime, looking every quarter of it (at most every 5 s).
    func startRenewingMedia() {
        let interval = min(Self.sweepInterval, .seconds(media.lifetime) / 4)
        renewTimer = loop.scheduleOnLoop(after: interval) { [weak self] in
            guard let self else { return }
            renewMedia(now: WallClock.milliseconds())
            startRenewingMedia()
        }
    }

    private func renewMedia(now: Int64) {
        let due = now + media.lifetime * 500
        for (session, client) in clients {
            guard client.joined, let name = client.show, let grant = client.media, grant.expiresAt <= due else {
                continue
            }
            let access = media.issue(stream: name, user: grant.user, now: now)
            clients[session]?.media = (grant.user, access.expiresAt)
            client.connection.send(LiveCodec.encode(.event(.access(access))))
        }
    }

    // MARK: Connections

    func connected(_ session: SessionID, _ connection: any ShowConnection, streamName: String, token: String?,
                   address: String) {
        clients[session] = Client(connection: connection, streamName: streamName, token: token, address: address)
    }

    func received(_ bytes: [UInt8], on session: SessionID) {
        guard var client = clients[session] else { return }
        let now = WallClock.milliseconds()
        let request: ClientRequest
        do {
            request = try LiveCodec.decodeRequest(bytes)
        } catch {
            malformed(session, &client, id: error.id, error.error)
            return
        }
        if client.joined, let name = client.show {
            var entropy: [UInt8] = []
            if case .ingest = request.request {
                var generator = SystemRandomNumberGenerator()
                entropy = (0..<IngestCredentials.nonceLength).map { _ in generator.next() }
            }
            let effects = shows[name]?.handle(request, from: session, now: now, entropy: entropy) ?? []
            run(effects, show: name, now: now)
            return
        }
        guard case .join(let since, let visitor, let chosenName) = request.request else {
            malformed(session, &client, id: request.id, ShowError(.invalid, "join first"))
            return
        }
        guard client.show == nil else {
            malformed(session, &client, id: request.id, ShowError(.invalid, "already joining"))
            return
        }
        join(session, &client, requestID: request.id, since: since, visitor: visitor, chosenName: chosenName,
             now: now)
    }

    func receivedBinary(on session: SessionID) {
        guard var client = clients[session] else { return }
        malformed(session, &client, id: nil, ShowError(.invalid, "the protocol is JSON in text messages"))
    }

    func disconnected(_ session: SessionID) {
        guard let client = clients.removeValue(forKey: session), let name = client.show else { return }
        members[name]?[session] = nil
        audiences[name] = nil
        guard shows[name] != nil else { return }
        let now = WallClock.milliseconds()
        let effects = shows[name]?.disconnected(session, now: now) ?? []
        run(effects, show: name, now: now)
    }

    private func join(_ session: SessionID, _ client: inout Client, requestID: Int64, since: ChatPosition?,
                      visitor: String?, chosenName: String?, now: Int64) {
        let participant: Participant
        var pass: VisitorPass?
        if let token = client.token {
            do {
                let claims = try AccessToken.verify(token, secret: configuration.secret, now: now / 1000)
                participant = Participant(user: claims.subject, name: claims.name ?? claims.subject)
            } catch {
                refuse(session, client, requestID, ShowError(.unauthorized, error.reason), ShowCloseCode.unauthorized)
                return
            }
            guard chosenName == nil else {
                refuse(session, client, requestID, ShowError(.invalid, "a signed-in user's name comes from the access "
                                                                + "token; only visitors choose one"),
                       ShowCloseCode.invalid)
                return
            }
        } else {
            let name: String?
            do {
                name = try chosenName.map { text throws(ShowError) in try Participant.visitorName(choosing: text) }
            } catch {
                refuse(session, client, requestID, error, ShowCloseCode.invalid)
                return
            }
            let visitor = self.visitor(bringing: visitor, from: client.address, now: now)
            pass = visitor
            participant = Participant(user: visitor.id, name: name ?? Self.visitorName(of: visitor))
        }
        let name = client.streamName
        guard Self.isStreamName(name) else {
            refuse(session, client, requestID, ShowError(.invalid, "a stream name is 1 to 128 characters of "
                                                            + "A-Z a-z 0-9 : _ . -"), ShowCloseCode.invalid)
            return
        }
        guard catalog.resolve(name) != nil else {
            refuse(session, client, requestID, ShowError(.notFound, "no stream is declared as \(name.prefix(128))"),
                   ShowCloseCode.notFound)
            return
        }
        client.show = name
        client.visitor = pass
        clients[session] = client
        withShow(name, { [unowned self] show in
            guard clients[session] != nil else { return [] }
            let now = WallClock.milliseconds()
            return show.join(session, as: participant, requestID: requestID, since: since, now: now)
        }, failed: { [unowned self] in
            guard let client = clients[session] else { return }
            refuse(session, client, requestID, ShowError(.unavailable, "the show could not be loaded"),
                   ShowCloseCode.unavailable)
        })
    }

    private func refuse(_ session: SessionID, _ client: Client, _ requestID: Int64?, _ error: ShowError,
                        _ code: UInt16) {
        let message = ServerMessage.reply(id: requestID, .failure(error))
        counters.sent(message)
        client.connection.send(LiveCodec.encode(message))
        client.connection.close(code: code, reason: error.code.rawValue)
        clients[session] = nil
    }

    private func malformed(_ session: SessionID, _ client: inout Client, id: Int64?, _ error: ShowError) {
        client.malformed += 1
        let message = ServerMessage.reply(id: id, .failure(error))
        counters.sent(message)
        client.connection.send(LiveCodec.encode(message))
        if client.malformed > Self.malformedLimit {
            counters.malformedDrops += 1
            client.connection.close(code: ShowCloseCode.policyViolation, reason: "too many malformed requests")
            configuration.onEvent(.connectionDropped(session: session.value, reason: "too many malformed requests"))
            clients[session] = nil
            if let name = client.show, client.joined {
                members[name]?[session] = nil
                audiences[name] = nil
                let now = WallClock.milliseconds()
                run(shows[name]?.disconnected(session, now: now) ?? [], show: name, now: now)
            }
            return
        }
        clients[session] = client
    }

    /// 1 to 128 of `A-Z a-z 0-9 : _ . -` (docs/live-protocol.md): what is not a name is `invalid`, not `not_found`.
    static func isStreamName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x3A || byte == 0x5F || byte == 0x2E || byte == 0x2D
        }
    }

    /// The visitor a join without an access token is: the one its visitor token proves, else a new one (random
    /// while its address has new ids left, else the one derived from the address: ``VisitorAdmission``).
    private func visitor(bringing token: String?, from address: String, now: Int64) -> VisitorPass {
        if let token, let pass = try? VisitorPass.verify(token, key: visitorKey) { return pass }
        guard visitorAdmission.mayMint(from: address, now: now) else {
            return VisitorPass.derived(from: "address " + address, key: visitorKey)
        }
        var generator = SystemRandomNumberGenerator()
        return VisitorPass.minted(random: (0..<VisitorPass.randomLength).map { _ in generator.next() },
                                  key: visitorKey)
    }

    /// "visitor-3f2a": four hex digits of the visitor's random id, so the same visitor has the same name after a
    /// reconnect (issue 34 item 5: names derived from the session counter were the same every run).
    static func visitorName(of visitor: VisitorPass) -> String {
        "visitor-" + Hex.encode(visitor.random.prefix(2))
    }

    // MARK: Status

    /// A stream's status for `GET /v1/streams/{name}`, loading the show if needed: a bad token is 401, a role that
    /// does not watch or a ban 401 (a visitor: sign in) or 403, an unknown stream 404, a name that cannot be one 400.
    func status(of name: String, token: String?, answer: @escaping (Result<StreamStatus, StatusRefusal>) -> Void) {
        let user: String?
        switch caller(token) {
        case .success(let subject): user = subject
        case .failure(let refusal): return answer(.failure(refusal))
        }
        guard Self.isStreamName(name) else {
            return answer(.failure(StatusRefusal(status: 400, error: ShowError(.invalid, "a stream name is 1 to 128 "
                                                                          + "characters of A-Z a-z 0-9 : _ . -"))))
        }
        guard catalog.resolve(name) != nil else {
            return answer(.failure(StatusRefusal(status: 404, error: ShowError(.notFound, "no stream is declared "
                                                                                + "as \(name)"))))
        }
        withShow(name, { show in
            answer(show.mayWatch(user) ? .success(show.status) : .failure(Self.notWatching(user, name)))
            return []
        }, failed: {
            answer(.failure(StatusRefusal(status: 503, error: ShowError(.unavailable, "the show could not be loaded"))))
        })
    }

    /// The live streams whose names match `pattern` (`*` matches any run of characters) that the caller may watch,
    /// by name. Only shows in memory can be live (a publish keeps its show loaded), so nothing is loaded for this.
    /// A pattern that no stream name could match is 400, as a name that cannot be one is for a single status.
    func liveStatuses(matching pattern: String, token: String?,
                      answer: @escaping (Result<[StreamStatus], StatusRefusal>) -> Void) {
        let user: String?
        switch caller(token) {
        case .success(let subject): user = subject
        case .failure(let refusal): return answer(.failure(refusal))
        }
        guard Self.isStreamPattern(pattern) else {
            return answer(.failure(StatusRefusal(status: 400, error: ShowError(.invalid, "a pattern is 1 to 128 "
                + "characters of A-Z a-z 0-9 : _ . - and * (any run of them), e.g. show:*"))))
        }
        let live = shows.values.filter { show in
            show.status.state == .live && Self.glob(pattern, matches: show.name) && show.mayWatch(user)
        }
        answer(.success(live.map(\.status).sorted { $0.name < $1.name }))
    }

    /// The counters and the live shows' audiences, for `/metrics`; the store's histogram is added by the server.
    func metrics() -> ShowMetrics {
        var metrics = ShowMetrics()
        var live: [ShowMetrics.LiveShow] = []
        for (name, show) in shows where show.status.state == .live {
            live.append(ShowMetrics.LiveShow(name: name, sessions: members[name]?.count ?? 0,
                                             viewers: show.status.viewers))
        }
        metrics.liveShowCount = live.count
        live.sort { $0.sessions != $1.sessions ? $0.sessions > $1.sessions : $0.name < $1.name }
        metrics.liveShows = Array(live.prefix(ShowMetrics.perShowLimit))
        metrics.sessions = clients.count
        metrics.chatMessages = counters.chatMessages
        metrics.deliveries = counters.deliveries
        metrics.refusals = counters.refusals
        metrics.malformedDrops = counters.malformedDrops
        return metrics
    }

    private func caller(_ token: String?) -> Result<String?, StatusRefusal> {
        guard let token else { return .success(nil) }
        do {
            return .success(try AccessToken.verify(token, secret: configuration.secret,
                                                   now: WallClock.milliseconds() / 1000).subject)
        } catch {
            return .failure(StatusRefusal(status: 401, error: ShowError(.unauthorized, error.reason)))
        }
    }

    private static func notWatching(_ user: String?, _ name: String) -> StatusRefusal {
        user == nil ? StatusRefusal(status: 401, error: ShowError(.unauthorized, "sign in to watch \(name)"))
            : StatusRefusal(status: 403, error: ShowError(.unauthorized, "you may not watch \(name)"))
    }

    /// 1 to 128 characters of a stream name's (``isStreamName(_:)``) or `*`: the pattern is not echoed in the
    /// refusal, so what it may hold does not matter beyond that.
    static func isStreamPattern(_ pattern: String) -> Bool {
        (1...128).contains(pattern.utf8.count)
            && isStreamName(String(decoding: pattern.utf8.map { $0 == 0x2A ? 0x5F : $0 }, as: UTF8.self))
    }

    /// `*` matches any run of characters (none included); everything else matches itself.
    static func glob(_ pattern: String, matches name: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
        let text = Array(name.utf8)
        guard let first = parts.first, text.starts(with: first) else { return false }
        guard parts.count > 1 else { return text == first }
        var position = first.count
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = text[position...].firstRange(of: part) else { return false }
            position = found.upperBound
        }
        let last = parts.last!
        return text.count - position >= last.count && text.suffix(last.count).elementsEqual(last)
    }

    // MARK: Shows

    /// Work on a show, and what to do when it cannot be loaded.
    private typealias ShowWork = (work: (inout Show) -> [ShowEffect], failed: () -> Void)

    /// Runs `work` on the show, loading it first if needed, then runs the effects it returns; `failed` runs
    /// instead when the show cannot be loaded.
    private func withShow(_ name: String, _ work: @escaping (inout Show) -> [ShowEffect],
                          failed: @escaping () -> Void = {}) {
        if shows[name] != nil {
            let effects = work(&shows[name]!)
            run(effects, show: name, now: WallClock.milliseconds())
            return
        }
        if loading[name] != nil {
            loading[name]!.append((work, failed))
            return
        }
        loading[name] = [(work, failed)]
        let box = hubBox()
        let now = WallClock.milliseconds()
        worker.submit(.load(name, historyLimit: showConfiguration.historyLimit, now: now) { result in
            box.loop.execute { box.value.loaded(name, result) }
        })
    }

    private func loaded(_ name: String, _ result: Result<ShowRecord, StoreError>) {
        let waiting = loading.removeValue(forKey: name) ?? []
        switch result {
        case .success(let record):
            guard let (declaration, parameters) = catalog.resolve(name) else { return }
            let show = Show(name: name, declaration: declaration, parameters: parameters, record: record,
                            configuration: showConfiguration)
            directory.withLock { $0.update(name, show.ingestEntry) }
            shows[name] = show
            // Each piece of work may leave the show dormant and unloaded; the next then loads it again.
            for (work, failed) in waiting { withShow(name, work, failed: failed) }
            unloadIfDormant(name, now: WallClock.milliseconds())
        case .failure(let error):
            configuration.onEvent(.storeFailed(show: name, reason: error.reason))
            for (_, failed) in waiting { failed() }
        }
    }

    /// Runs `then` once the show is loaded (its directory entry then holds its generation), or `failed` when the
    /// store could not load it.
    func whenLoaded(_ name: String, then: @escaping @Sendable () -> Void, failed: @escaping @Sendable () -> Void) {
        withShow(name, { _ in
            then()
            return []
        }, failed: failed)
    }

    /// A publisher the ingest allowed started or stopped.
    func publish(_ ticket: IngestDirectory.Ticket, started: Bool) {
        withShow(ticket.show, { show in
            started ? show.publishStarted(ticket.tile, generation: ticket.generation)
                    : show.publishStopped(ticket.tile, generation: ticket.generation)
        }, failed: {})
    }

    private func unloadIfDormant(_ name: String, now: Int64) {
        guard let show = shows[name], show.isDormant(now: now), members[name]?.isEmpty ?? true,
              loading[name] == nil else { return }
        shows[name] = nil
        members[name] = nil
        audiences[name] = nil
        directory.withLock { $0.forgetIfPlain(name) }
    }

    private func sweep(now: Int64) {
        for name in Array(shows.keys) { unloadIfDormant(name, now: now) }
    }

    // MARK: Effects

    func run(_ effects: [ShowEffect], show name: String, now: Int64) {
        for effect in effects {
            switch effect {
            case .send(let session, var message):
                guard var client = clients[session] else { continue }
                if case .reply(let id, .success(.welcome(var welcome))) = message {
                    client.joined = true
                    members[name, default: [:]][session] = client.connection
                    audiences[name] = nil
                    // The session may watch: its media token (the show knows no keys; the hub signs).
                    let access = media.issue(stream: name, user: welcome.you.user, now: now)
                    welcome.access = access
                    client.media = (welcome.you.user, access.expiresAt)
                    welcome.visitor = client.visitor.map { VisitorGrant(id: $0.id, token: $0.token) }
                    message = .reply(id: id, .success(.welcome(welcome)))
                }
                if let close = Self.close(after: message) { (client.closeCode, client.closeReason) = close }
                clients[session] = client
                counters.sent(message)
                client.connection.send(LiveCodec.encode(message))
            case .broadcast(let message):
                if case .event(.tiles(let tiles, let main)) = message { configuration.onPictures(name, tiles, main) }
                if case .event(let event) = message { report(event, show: name, now: now) }
                let audience = audiences[name] ?? Array((members[name] ?? [:]).values)
                audiences[name] = audience
                counters.broadcast(message, to: audience.count)
                guard !audience.isEmpty else { continue }
                configuration.fanOut(LiveCodec.encode(message), audience)
            case .close(let session):
                members[name]?[session] = nil
                audiences[name] = nil
                guard let client = clients.removeValue(forKey: session) else { continue }
                client.connection.close(code: client.closeCode, reason: client.closeReason)
            case .persist(let commit, let write):
                let box = hubBox()
                worker.submit(.commit(show: name, write) { result in
                    box.loop.execute { box.value.committed(name, commit, write, result) }
                })
            case .ingestChanged(let entry):
                directory.withLock { $0.update(name, entry) }
            case .cutPublishers(let keyHash):
                configuration.onEvent(.publishersCut(show: name, reason: keyHash == nil ? "the show ended"
                                                                                        : "its OBS key was renewed"))
                cutter.withLock { $0 }?(name, keyHash)
            case .revokeMedia(let user):
                media.revoke(stream: name, user: user, now: now)
            }
        }
        scheduleTick(for: name)
        unloadIfDormant(name, now: now)
    }

    private func committed(_ name: String, _ commit: CommitID, _ write: StoreWrite,
                           _ result: Result<StoreFact, StoreError>) {
        switch result {
        case .failure(let error):
            configuration.onEvent(.storeFailed(show: name, reason: error.reason))
        case .success:
            if case .ban(let user) = write { configuration.onEvent(.userBanned(show: name, user: user)) }
            if case .kick(let user) = write { configuration.onEvent(.userKicked(show: name, user: user)) }
        }
        let now = WallClock.milliseconds()
        guard let effects = shows[name]?.committed(commit, result, now: now) else { return }
        run(effects, show: name, now: now)
    }

    /// Turns a show's broadcast into the operator's events (webhooks, the log): live, no longer live, pictures.
    private func report(_ event: Event, show name: String, now: Int64) {
        switch event {
        case .state(.live):
            guard liveSince[name] == nil else { return }
            liveSince[name] = (now, shows[name]?.status.viewers ?? 0)
            configuration.onEvent(.showLive(show: name))
        case .state(.idle), .state(.ended):
            guard let live = liveSince.removeValue(forKey: name) else { return }
            configuration.onEvent(.showEnded(show: name, seconds: Double(now - live.since) / 1000,
                                             peakViewers: live.peakViewers))
        case .viewers(let count):
            if let live = liveSince[name], count > live.peakViewers { liveSince[name] = (live.since, count) }
        case .tiles(let tiles, _):
            let now = Set(tiles)
            let before = publishedTiles[name] ?? []
            publishedTiles[name] = now.isEmpty ? nil : now
            for tile in now.subtracting(before).sorted() {
                configuration.onEvent(.tileAdded(show: name, tile: tile.rawValue))
            }
            for tile in before.subtracting(now).sorted() {
                configuration.onEvent(.tileEnded(show: name, tile: tile.rawValue))
            }
        case .media, .message, .deleted, .cleared, .pinned, .slow, .reactions, .you, .ended, .access:
            return
        }
    }

    private static func close(after message: ServerMessage) -> (code: UInt16, reason: String)? {
        switch message {
        case .event(.ended(let reason)):
            let code = switch reason {
            case .left: ShowCloseCode.normal
            case .kicked: ShowCloseCode.kicked
            case .banned: ShowCloseCode.banned
            }
            return (code, reason.rawValue)
        case .reply(_, .failure(let error)) where error.code == .banned:
            return (ShowCloseCode.banned, ErrorCode.banned.rawValue)
        case .reply(_, .failure(let error)) where error.code == .unauthorized:
            return (ShowCloseCode.unauthorized, ErrorCode.unauthorized.rawValue)
        case .reply, .event: return nil
        }
    }

    // MARK: Time

    private func scheduleTick(for name: String) {
        guard let deadline = shows[name]?.nextDeadline else { return }
        if let tick, tick.at <= deadline { return }
        tick?.timer.cancel()
        let delay = max(0, deadline - WallClock.milliseconds())
        let timer = loop.scheduleOnLoop(after: .milliseconds(delay)) { [weak self] in self?.fire() }
        tick = (deadline, timer)
    }

    private func fire() {
        tick = nil
        let now = WallClock.milliseconds()
        for name in Array(shows.keys) {
            guard let deadline = shows[name]?.nextDeadline, deadline <= now else { continue }
            let effects = shows[name]?.tick(now: now) ?? []
            run(effects, show: name, now: now)
        }
        for name in shows.keys { scheduleTick(for: name) }
    }

    func closeAll() {
        tick?.timer.cancel()
        sweepTimer?.cancel()
        renewTimer?.cancel()
        for client in clients.values { client.connection.close(code: 1001, reason: "the server is shutting down") }
        clients.removeAll()
    }
}
