import Identity
import LiveProtocol

/// One live show: a state machine per stream name, without I/O or a clock.
///
/// Commands come in (a session joins, asks, leaves; a picture starts or stops publishing; time passes) and
/// ``ShowEffect``s go out: messages for sessions, writes for the store, closes, ingest changes. Nothing that other
/// nodes must see changes here directly: an accepted request becomes a ``StoreWrite``, and only the
/// ``StoreFact`` the store answers with changes the show (``committed(_:_:now:)`` for this node's writes,
/// ``apply(_:now:)`` for facts from elsewhere). So a message is acknowledged only after it is committed, and a
/// show served by several nodes behaves as one.
///
/// Time is milliseconds since 1970, from the driver.
public struct Show: Sendable {
    /// The stream name.
    public let name: String
    let declaration: StreamDeclaration
    let parameters: [String: String]
    let configuration: ShowConfiguration

    struct Session: Sendable {
        var participant: Participant
        var role: Role
        /// Nil for hosts, who are not counted as watchers.
        var watcherKey: String?
        /// The request rate, slow mode and reactions go by this key (a user's sessions share it).
        var senderKey: String
    }

    /// What to answer when a write's fact comes back.
    enum PendingReply: Sendable {
        /// The committed message (for `send`), else `done`.
        case fromFact
        /// This reply.
        case fixed(Reply)
        /// Nothing (a write of the ingest's, not a request's).
        case none
    }

    struct Pending: Sendable {
        var session: SessionID?
        var requestID: Int64?
        var reply: PendingReply
    }

    var sessions: [SessionID: Session] = [:]
    var sessionsByUser: [UserID: Set<SessionID>] = [:]
    var presence = Presence()
    var viewersAnnouncer: Coalescer
    var announcedViewers = 0

    var chat: ChatLog
    var pinned: ChatMessage?
    var slow: Int
    var bans: Set<UserID>
    var timeouts: [UserID: Int64]
    var ingestKey: IngestKeyRecord?
    var media: MediaRecord

    var lastSent: [String: Int64] = [:]
    /// Requests by sender: a user's sessions together get one rate (issue 34 item 6: five tabs were five rates).
    var requestBuckets: [String: TokenBucket] = [:]
    var reactionBuckets: [String: TokenBucket] = [:]
    var reactionTally: [Reaction: Int] = [:]
    var reactionAnnouncer: Coalescer
    var grantsOutstandingUntil: Int64 = 0
    /// When the show last went live (milliseconds since 1970), while it is live; kept in memory only: after a restart
    /// a show is live again when a publisher is back, and counts from then.
    public internal(set) var liveSince: Int64?

    var pending: [CommitID: Pending] = [:]
    var nextCommit: UInt64 = 1

    /// Creates a show from what the store loaded.
    /// - Parameters:
    ///   - name: the stream name.
    ///   - declaration: the declaration whose pattern matched it.
    ///   - parameters: what the pattern captured.
    ///   - record: the stored show.
    ///   - configuration: limits and keys.
    public init(name: String, declaration: StreamDeclaration, parameters: [String: String], record: ShowRecord,
                configuration: ShowConfiguration) {
        self.name = name
        self.declaration = declaration
        self.parameters = parameters
        self.configuration = configuration
        chat = ChatLog(epoch: record.epoch, seq: record.seq, history: record.history,
                       historyLimit: configuration.historyLimit)
        pinned = record.pinned
        slow = record.slow
        bans = record.bans
        timeouts = record.timeouts
        ingestKey = record.ingestKey
        media = record.media
        viewersAnnouncer = Coalescer(period: configuration.viewersPeriod)
        reactionAnnouncer = Coalescer(period: configuration.reactionsPeriod)
    }

    // MARK: What the driver reads

    /// The show as a joining session sees it.
    public var snapshot: ShowSnapshot {
        ShowSnapshot(name: name, title: declaration.options.title.map { StreamOptions.expand($0, parameters) },
                     description: declaration.options.description.map { StreamOptions.expand($0, parameters) },
                     state: media.state, tiles: media.sortedTiles, main: media.main,
                     viewers: presence.count, pinned: pinned, slow: slow,
                     reactions: declaration.options.reactions ? Reaction.allCases : [])
    }

    /// The show as a card sees it without joining (`GET /v1/streams/{name}`).
    public var status: StreamStatus {
        let snapshot = snapshot
        return StreamStatus(name: name, title: snapshot.title, description: snapshot.description, state: media.state,
                            viewers: presence.count, tiles: media.sortedTiles, main: media.main, startedAt: liveSince)
    }

    /// Whether `user` (nil or a visitor's id: a visitor) may see the show: a role that watches, not banned.
    public func mayWatch(_ user: String?) -> Bool {
        role(of: user) != .none && !(user.map { bans.contains(UserID($0)) } ?? false)
    }

    /// The show's entry in the ingest directory.
    public var ingestEntry: IngestDirectory.Entry {
        IngestDirectory.Entry(generation: media.generation, ended: media.ended, keyHash: ingestKey?.hash)
    }

    /// Sessions joined.
    public var sessionCount: Int { sessions.count }

    /// The role a user (nil: a visitor) has in this show.
    /// A visitor's id (``VisitorPass``) has the role of visitors, whatever a declaration lists.
    public func role(of user: String?) -> Role {
        declaration.role(VisitorPass.isVisitor(user) ? nil : user, parameters)
    }

    /// When the show next needs ``tick(now:)``: a held viewer count or reaction tally, or a timeout ending for a
    /// connected user. Nil when nothing waits.
    public var nextDeadline: Int64? {
        var deadline = [viewersAnnouncer.dueAt, reactionAnnouncer.dueAt].compactMap { $0 }.min()
        for (user, until) in timeouts where sessionsByUser[user] != nil {
            deadline = min(deadline ?? until, until)
        }
        return deadline
    }

    /// Whether the driver may drop the show from memory: no session, no write in flight, nothing published, no
    /// grant that could still start a publish.
    public func isDormant(now: Int64) -> Bool {
        sessions.isEmpty && pending.isEmpty && media.tiles.isEmpty && now > grantsOutstandingUntil
    }

    // MARK: Sessions

    /// A session asks to join (its first request).
    /// - Parameters:
    ///   - session: the driver's id for it.
    ///   - participant: who it is (from a checked token), or a visitor.
    ///   - requestID: the join request's id.
    ///   - since: the chat position it already holds, after a reconnect.
    ///   - now: the time.
    /// - Returns: the welcome, or an error reply and a close (role none: `unauthorized`; banned: `banned`).
    public mutating func join(_ session: SessionID, as participant: Participant, requestID: Int64,
                              since: ChatPosition?, now: Int64) -> [ShowEffect] {
        guard sessions[session] == nil else {
            return [.send(session, .reply(id: requestID, .failure(ShowError(.invalid, "this session already joined"))))]
        }
        let role = role(of: participant.user)
        if role == .none {
            let reason = VisitorPass.isVisitor(participant.user) ? "sign in to watch \(name)"
                : "you may not watch \(name)"
            return [.send(session, .reply(id: requestID, .failure(ShowError(.unauthorized, reason)))), .close(session)]
        }
        if let user = participant.user, bans.contains(UserID(user)) {
            return [.send(session, .reply(id: requestID, .failure(ShowError(.banned, "you are banned from \(name)")))),
                    .close(session)]
        }
        let watcherKey = participant.watcherKey(session: session)
        sessions[session] = Session(participant: participant, role: role,
                                    watcherKey: role == .host ? nil : watcherKey, senderKey: watcherKey)
        if let user = participant.user { sessionsByUser[UserID(user), default: []].insert(session) }
        var effects: [ShowEffect] = []
        if role != .host { changePresence(watcherKey, by: 1, now: now, into: &effects) }
        let welcome = Welcome(show: snapshot, you: standing(of: sessions[session]!, now: now),
                              chat: chat.sync(since: since))
        effects.insert(.send(session, .reply(id: requestID, .success(.welcome(welcome)))), at: 0)
        return effects
    }

    /// A session's connection closed (or the driver dropped it). Doing this twice is harmless.
    public mutating func disconnected(_ session: SessionID, now: Int64) -> [ShowEffect] {
        var effects: [ShowEffect] = []
        forget(session, now: now, into: &effects)
        return effects
    }

    /// Time passed: held counts and reactions go out, ended timeouts give their users back the chat.
    public mutating func tick(now: Int64) -> [ShowEffect] {
        var effects: [ShowEffect] = []
        if viewersAnnouncer.tick(now: now), presence.count != announcedViewers {
            announcedViewers = presence.count
            effects.append(.broadcast(.event(.viewers(presence.count))))
        }
        if reactionAnnouncer.tick(now: now) { flushReactions(into: &effects) }
        for (user, until) in timeouts where until <= now {
            timeouts[user] = nil
            for session in sessionsByUser[user] ?? [] {
                if let state = sessions[session] {
                    effects.append(.send(session, .event(.you(standing(of: state, now: now)))))
                }
            }
        }
        return effects
    }

    // MARK: The store's answers

    /// The outcome of a write this show asked for.
    /// - Parameters:
    ///   - commit: the write's id.
    ///   - result: the fact, or why it failed (nothing changed).
    ///   - now: the time.
    public mutating func committed(_ commit: CommitID, _ result: Result<StoreFact, StoreError>,
                                   now: Int64) -> [ShowEffect] {
        guard let waiting = pending.removeValue(forKey: commit) else { return [] }
        switch result {
        case .success(let fact):
            var effects = apply(fact, now: now)
            if let session = waiting.session, sessions[session] != nil {
                let reply: Reply? = switch waiting.reply {
                case .fromFact: if case .message(let message) = fact { .message(message) } else { .done }
                case .fixed(let reply): reply
                case .none: nil
                }
                if let reply { effects.append(.send(session, .reply(id: waiting.requestID, .success(reply)))) }
            }
            return effects
        case .failure(let error):
            guard let session = waiting.session, sessions[session] != nil else { return [] }
            // A message deleted between the request and its commit is the request's mistake, not the store's.
            let refusal = error.code == .notFound ? ShowError(.invalid, error.reason)
                : ShowError(.unavailable, "not saved: \(error.reason)")
            return [.send(session, .reply(id: waiting.requestID, .failure(refusal)))]
        }
    }

    // MARK: Helpers shared by the extensions

    func standing(of session: Session, now: Int64) -> SessionStanding {
        let until = session.participant.user.flatMap { timeouts[UserID($0)] }.flatMap { $0 > now ? $0 : nil }
        return SessionStanding(user: session.participant.user, name: session.participant.name, role: session.role,
                               canWrite: session.role.writes && until == nil, timeoutUntil: until)
    }

    mutating func persist(_ write: StoreWrite, for session: SessionID?, requestID: Int64?,
                          reply: PendingReply) -> ShowEffect {
        let commit = CommitID(nextCommit)
        nextCommit += 1
        pending[commit] = Pending(session: session, requestID: requestID, reply: reply)
        return .persist(commit, write)
    }

    mutating func changePresence(_ key: String, by delta: Int, now: Int64, into effects: inout [ShowEffect]) {
        guard presence.change(key, by: delta), viewersAnnouncer.changed(now: now) else { return }
        announcedViewers = presence.count
        effects.append(.broadcast(.event(.viewers(presence.count))))
    }

    /// Removes a session from every table (its watcher count, its user's sessions).
    mutating func forget(_ session: SessionID, now: Int64, into effects: inout [ShowEffect]) {
        guard let state = sessions.removeValue(forKey: session) else { return }
        if let user = state.participant.user {
            sessionsByUser[UserID(user)]?.remove(session)
            if sessionsByUser[UserID(user)]?.isEmpty == true { sessionsByUser[UserID(user)] = nil }
        }
        if let key = state.watcherKey { changePresence(key, by: -1, now: now, into: &effects) }
        let senderStillHere = state.participant.user.map { sessionsByUser[UserID($0)] != nil } ?? false
        if !senderStillHere {
            requestBuckets.forgetIfFull(state.senderKey, rate: configuration.requestRate, now: now)
            reactionBuckets.forgetIfFull(state.senderKey, rate: configuration.reactionRate, now: now)
            if let sent = lastSent[state.senderKey], now - sent >= Int64(slow) * 1000 {
                lastSent[state.senderKey] = nil
            }
        }
    }

    /// Sends `ended(reason)` to a session, forgets it and closes it.
    mutating func end(_ session: SessionID, _ reason: EndReason, now: Int64, into effects: inout [ShowEffect]) {
        effects.append(.send(session, .event(.ended(reason))))
        forget(session, now: now, into: &effects)
        effects.append(.close(session))
    }

    mutating func flushReactions(into effects: inout [ShowEffect]) {
        guard !reactionTally.isEmpty else { return }
        effects.append(.broadcast(.event(.reactions(reactionTally))))
        reactionTally.removeAll()
    }
}
