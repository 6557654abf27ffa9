import LiveProtocol

extension Show {
    /// Slow mode ranges from off to an hour (Twitch stops at 120 s; a longer wait is a valid choice for a show).
    public static let slowRange = 0...3600
    /// Timeouts range from a minute to a day, as the seed says.
    public static let timeoutRange = 60...86_400
    /// The longest user id a moderation request may name, in bytes (as in tokens).
    static let maximumUserLength = 256

    /// A joined session's request (anything but `join`).
    /// - Parameters:
    ///   - request: the request and its id.
    ///   - session: who asks.
    ///   - now: the time.
    ///   - entropy: random bytes for a new OBS key (at least ``IngestCredentials/nonceLength``; only `ingest`
    ///     uses them).
    /// - Returns: the reply now, or the write whose commit will bring it.
    public mutating func handle(_ request: ClientRequest, from session: SessionID, now: Int64,
                                entropy: [UInt8]) -> [ShowEffect] {
        guard let state = sessions[session] else {
            return [.send(session, .reply(id: request.id, .failure(ShowError(.invalid, "join first"))))]
        }
        if case .leave = request.request {
            var effects: [ShowEffect] = [.send(session, .reply(id: request.id, .success(.done)))]
            end(session, .left, now: now, into: &effects)
            return effects
        }
        if let wait = requestBuckets.take(state.senderKey, rate: configuration.requestRate, now: now) {
            return [.send(session, .reply(id: request.id, .failure(Self.rateLimited(wait))))]
        }
        do throws(ShowError) {
            return try accept(request, from: session, state, now: now, entropy: entropy)
        } catch {
            return [.send(session, .reply(id: request.id, .failure(error)))]
        }
    }

    private mutating func accept(_ request: ClientRequest, from session: SessionID, _ state: Session, now: Int64,
                                 entropy: [UInt8]) throws(ShowError) -> [ShowEffect] {
        let id = request.id
        switch request.request {
        case .join:
            throw ShowError(.invalid, "this session already joined")
        case .leave:
            return []
        case .send(let text):
            return [try send(text, from: session, state, requestID: id, now: now)]
        case .react(let reaction):
            return [try react(reaction, from: session, state, requestID: id, now: now)]
        case .goLive(let tiles):
            return try goLive(tiles, session: session, state, requestID: id, now: now)
        case .end:
            try requireHost(state, "end the show")
            return [persist(.end, for: session, requestID: id, reply: .fixed(.done))]
        case .ingest(let renew):
            return try ingest(renew: renew, session: session, state, requestID: id, entropy: entropy)
        case .setMain(let tile):
            try requireHost(state, "choose the main picture")
            return [persist(.setMain(tile), for: session, requestID: id, reply: .fixed(.done))]
        case .deleteMessage(let messageID):
            try requireModerator(state, "delete messages")
            guard let message = chat.message(messageID) else {
                throw ShowError(.invalid, "no message \(messageID) in the chat")
            }
            if !UserID.same(message.user, state.participant.user) { try requireMayActOn(message.user, state) }
            return [persist(.deleteMessage(id: messageID), for: session, requestID: id, reply: .fixed(.done))]
        case .pin(let messageID):
            try requireModerator(state, "pin messages")
            guard chat.message(messageID) != nil else {
                throw ShowError(.invalid, "no message \(messageID) in the chat")
            }
            return [persist(.pin(id: messageID), for: session, requestID: id, reply: .fixed(.done))]
        case .unpin:
            try requireModerator(state, "unpin messages")
            return [persist(.pin(id: nil), for: session, requestID: id, reply: .fixed(.done))]
        case .timeout(let user, let seconds):
            try requireModerator(state, "time users out")
            try Self.requireUserID(user)
            guard Self.timeoutRange.contains(seconds) else {
                throw ShowError(.invalid, "a timeout lasts from \(Self.timeoutRange.lowerBound) to "
                                    + "\(Self.timeoutRange.upperBound) seconds, not \(seconds)")
            }
            try requireMayActOn(user, state)
            let until = now + Int64(seconds) * 1000
            return [persist(.timeout(user: user, until: until), for: session, requestID: id,
                            reply: .fixed(.timedOut(until: until)))]
        case .setSlow(let seconds):
            try requireModerator(state, "set slow mode")
            guard Self.slowRange.contains(seconds) else {
                throw ShowError(.invalid, "slow mode is 0 (off) to \(Self.slowRange.upperBound) seconds, "
                                    + "not \(seconds)")
            }
            return [persist(.slow(seconds), for: session, requestID: id, reply: .fixed(.done))]
        case .clearChat:
            try requireModerator(state, "clear the chat")
            return [persist(.clearChat, for: session, requestID: id, reply: .fixed(.done))]
        case .kick(let user):
            try requireModerator(state, "kick users")
            try Self.requireUserID(user)
            try requireMayActOn(user, state)
            return [persist(.kick(user: user), for: session, requestID: id, reply: .fixed(.done))]
        case .ban(let user):
            try requireModerator(state, "ban users")
            try Self.requireUserID(user)
            try requireMayActOn(user, state)
            return [persist(.ban(user: user), for: session, requestID: id, reply: .fixed(.done))]
        case .unban(let user):
            try requireModerator(state, "lift bans")
            try Self.requireUserID(user)
            return [persist(.unban(user: user), for: session, requestID: id, reply: .fixed(.done))]
        }
    }

    // MARK: Chat

    private mutating func send(_ text: String, from session: SessionID, _ state: Session, requestID: Int64,
                               now: Int64) throws(ShowError) -> ShowEffect {
        guard state.role.writes else { throw ShowError(.readOnly, "you can watch \(name) but not write in its chat") }
        try requireNotTimedOut(state, now: now, "you are timed out of the chat")
        try Self.validate(text)
        if slow > 0, !state.role.moderates, let last = lastSent[state.senderKey] {
            let wait = last + Int64(slow) * 1000 - now
            if wait > 0 {
                throw ShowError(.slow, "slow mode: one message every \(slow) s", retryAfter: Self.seconds(wait))
            }
        }
        lastSent[state.senderKey] = now
        let draft = MessageDraft(user: state.participant.user, name: state.participant.name, role: state.role,
                                 text: text, time: now)
        return persist(.message(draft), for: session, requestID: requestID, reply: .fromFact)
    }

    /// A message is 1 to 500 code points, not only white space, with no control characters but line feeds.
    static func validate(_ text: String) throws(ShowError) {
        let scalars = text.unicodeScalars
        guard scalars.count <= ChatMessage.maximumLength else {
            throw ShowError(.invalid, "a message is at most \(ChatMessage.maximumLength) characters, "
                                + "this one has \(scalars.count)")
        }
        guard scalars.contains(where: isVisible) else {
            throw ShowError(.invalid, "a message cannot be empty (it has no visible character)")
        }
        guard !scalars.contains(where: { $0 != "\n" && $0.properties.generalCategory == .control }) else {
            throw ShowError(.invalid, "a message cannot hold control characters (only line feeds)")
        }
    }

    /// A timed-out user may not write: `timeout`, with the seconds left.
    private func requireNotTimedOut(_ state: Session, now: Int64, _ reason: String) throws(ShowError) {
        if let user = state.participant.user, let until = timeouts[UserID(user)], until > now {
            throw ShowError(.timeout, reason, retryAfter: Self.seconds(until - now))
        }
    }

    /// Whether a character shows as something: not white space, not a format or bidi control (U+200B, U+202E), not
    /// default-ignorable (U+3164 HANGUL FILLER), and not U+2800, the braille pattern with no dots. A message of only
    /// such characters renders blank.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint && !properties.isBidiControl
            && properties.generalCategory != .format && properties.generalCategory != .control
            && scalar != "\u{2800}"
    }

    private mutating func react(_ reaction: Reaction, from session: SessionID, _ state: Session, requestID: Int64,
                                now: Int64) throws(ShowError) -> ShowEffect {
        guard declaration.options.reactions else { throw ShowError(.invalid, "\(name) takes no reactions") }
        guard state.role.writes else { throw ShowError(.readOnly, "you can watch \(name) but not react") }
        // A reaction is writing (the seed: what a role may not do throws `timeout`).
        try requireNotTimedOut(state, now: now, "you are timed out of the chat and its reactions")
        if let wait = reactionBuckets.take(state.senderKey, rate: configuration.reactionRate, now: now) {
            throw Self.rateLimited(wait)
        }
        return persist(.reaction(reaction), for: session, requestID: requestID, reply: .fixed(.done))
    }

    // MARK: Going live

    private mutating func goLive(_ requested: [TileKind], session: SessionID, _ state: Session, requestID: Int64,
                                 now: Int64) throws(ShowError) -> [ShowEffect] {
        try requireHost(state, "go live")
        guard let url = configuration.ingestURL else {
            throw ShowError(.unavailable, "this server has no RTMP ingest to publish to")
        }
        var tiles: [TileKind] = []
        for tile in requested.isEmpty ? [.camera] : requested where !tiles.contains(tile) {
            guard tile != .obs else { throw ShowError(.invalid, "OBS publishes with the key from ingest, not a grant") }
            tiles.append(tile)
        }
        let expiresAt = now + configuration.grantLifetime
        grantsOutstandingUntil = max(grantsOutstandingUntil, expiresAt)
        let grants = tiles.map { tile in
            PublishGrant(tile: tile, url: url,
                         key: configuration.credentials.grant(show: name, tile: tile, generation: media.generation,
                                                              expiresAt: expiresAt),
                         expiresAt: expiresAt)
        }
        guard media.ended else { return [.send(session, .reply(id: requestID, .success(.grants(grants))))] }
        // After an end the show reopens first: the grants work once that is committed.
        return [persist(.reopen, for: session, requestID: requestID, reply: .fixed(.grants(grants)))]
    }

    private mutating func ingest(renew: Bool, session: SessionID, _ state: Session, requestID: Int64,
                                 entropy: [UInt8]) throws(ShowError) -> [ShowEffect] {
        try requireHost(state, "get the OBS key")
        guard let url = configuration.ingestURL else {
            throw ShowError(.unavailable, "this server has no RTMP ingest to publish to")
        }
        let credentials = configuration.credentials
        if !renew, let record = ingestKey {
            let key = credentials.ingestKey(show: name, nonce: record.nonce)
            // A key derived again matches its hash unless the server's secret changed: then a new one is made.
            if IngestCredentials.hash(key) == record.hash {
                return [.send(session, .reply(id: requestID, .success(.ingest(IngestEndpoint(url: url, key: key)))))]
            }
        }
        let made = credentials.makeIngestKey(show: name, entropy: entropy)
        return [persist(.ingestKey(made.record), for: session, requestID: requestID,
                        reply: .fixed(.ingest(IngestEndpoint(url: url, key: made.key))))]
    }

    // MARK: Publishers (from the ingest)

    /// A picture started publishing (the ingest allowed it with this show's grant or OBS key).
    public mutating func publishStarted(_ tile: TileKind, generation: Int64) -> [ShowEffect] {
        [persist(.tileStarted(tile, generation: generation), for: nil, requestID: nil, reply: .none)]
    }

    /// A picture stopped publishing.
    public mutating func publishStopped(_ tile: TileKind, generation: Int64) -> [ShowEffect] {
        [persist(.tileStopped(tile, generation: generation), for: nil, requestID: nil, reply: .none)]
    }

    // MARK: Rules

    private func requireHost(_ state: Session, _ action: String) throws(ShowError) {
        guard state.role == .host else { throw ShowError(.notHost, "only the host can \(action)") }
    }

    private func requireModerator(_ state: Session, _ action: String) throws(ShowError) {
        guard state.role.moderates else { throw ShowError(.notHost, "only the host or a mod can \(action)") }
    }

    /// A mod cannot act on the host or another mod; nobody acts on a host.
    private func requireMayActOn(_ user: String?, _ actor: Session) throws(ShowError) {
        switch role(of: user) {
        case .host:
            if actor.role == .mod { throw ShowError(.notHost, "a mod cannot act on the host") }
            throw ShowError(.invalid, "a host cannot be moderated")
        case .mod:
            if actor.role == .mod { throw ShowError(.notHost, "a mod cannot act on another mod") }
        case .viewer, .readOnly, .none:
            break
        }
    }

    private static func requireUserID(_ user: String) throws(ShowError) {
        guard !user.isEmpty, user.utf8.count <= maximumUserLength else {
            throw ShowError(.invalid, "a user id is 1 to \(maximumUserLength) bytes")
        }
    }

    static func seconds(_ milliseconds: Int64) -> Int {
        Int(clamping: max(1, (milliseconds + 999) / 1000))
    }

    static func rateLimited(_ waitMilliseconds: Int64) -> ShowError {
        ShowError(.rateLimited, "too many requests: slow down", retryAfter: seconds(waitMilliseconds))
    }
}
