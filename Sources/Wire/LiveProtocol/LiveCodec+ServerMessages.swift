import JSON

extension LiveCodec {
    // MARK: Encoding (the server side)

    /// Encodes a reply or an event.
    public static func encode(_ message: ServerMessage) -> [UInt8] {
        JSONWriter.bytes(json(message))
    }

    /// The JSON value of a reply or an event.
    public static func json(_ message: ServerMessage) -> JSONValue {
        switch message {
        case .reply(let id, .success(let reply)):
            return .object([("reply", id.map { .integer($0) } ?? .null), ("ok", .bool(true))] + members(reply))
        case .reply(let id, .failure(let error)):
            return .object([("reply", id.map { .integer($0) } ?? .null), ("ok", .bool(false)),
                            ("error", json(error))])
        case .event(let event):
            return .object([("event", .string(name(of: event)))] + members(event))
        }
    }

    /// An error as replies carry it: `{"code": …, "reason": …, "retryAfter": …}`.
    public static func json(_ error: ShowError) -> JSONValue {
        var members: [(String, JSONValue)] = [("code", .string(error.code.rawValue)), ("reason", .string(error.reason))]
        if let retryAfter = error.retryAfter { members.append(("retryAfter", .integer(retryAfter))) }
        return .object(members)
    }

    /// The JSON of a chat message.
    public static func json(_ message: ChatMessage) -> JSONValue {
        .object([
            ("id", .integer(message.id)), ("user", .optional(message.user)), ("name", .string(message.name)),
            ("role", .string(message.role.rawValue)), ("text", .string(message.text)), ("time", .integer(message.time)),
        ])
    }

    static func json(_ standing: SessionStanding) -> JSONValue {
        .object([
            ("user", .optional(standing.user)), ("name", .string(standing.name)),
            ("role", .string(standing.role.rawValue)), ("canWrite", .bool(standing.canWrite)),
            ("timeoutUntil", standing.timeoutUntil.map { .integer($0) } ?? .null),
        ])
    }

    static func json(_ show: ShowSnapshot) -> JSONValue {
        // Title and description only when declared: a client reads their absence as none.
        .object([("name", .string(show.name))] + (show.title.map { [("title", .string($0))] } ?? [])
                + (show.description.map { [("description", .string($0))] } ?? []) + [
            ("state", .string(show.state.rawValue)),
            ("tiles", .array(show.tiles.map { .string($0.rawValue) })), ("main", .optional(show.main?.rawValue)),
            // As the `media` event says it (issue 34 item 16: the welcome had no `media`).
            ("media", .string(show.main == nil ? "off" : "on")), ("viewers", .integer(show.viewers)),
            ("pinned", show.pinned.map(json) ?? .null),
            ("slow", .integer(show.slow)), ("reactions", .array(show.reactions.map { .string($0.rawValue) })),
        ])
    }

    static func json(_ chat: ChatSync) -> JSONValue {
        .object([
            ("epoch", .string(chat.epoch)), ("seq", .integer(chat.seq)), ("reset", .bool(chat.reset)),
            ("messages", .array(chat.messages.map(json))), ("deleted", .array(chat.deleted.map { .integer($0) })),
        ])
    }

    static func json(_ access: MediaAccess) -> JSONValue {
        .object([("token", .string(access.token)), ("expiresAt", .integer(access.expiresAt))])
    }

    private static func members(_ reply: Reply) -> [(String, JSONValue)] {
        switch reply {
        case .welcome(let welcome):
            [("show", json(welcome.show)), ("you", json(welcome.you)), ("chat", json(welcome.chat))]
                + (welcome.access.map { [("access", json($0))] } ?? [])
                + (welcome.visitor.map { visitor in
                    [("visitor", .object([("id", .string(visitor.id)), ("token", .string(visitor.token))]))]
                } ?? [])
        case .message(let message):
            [("message", json(message))]
        case .grants(let grants):
            [("grants", .array(grants.map { grant in
                .object([("tile", .string(grant.tile.rawValue)), ("url", .string(grant.url)),
                         ("key", .string(grant.key)), ("expiresAt", .integer(grant.expiresAt))])
            }))]
        case .ingest(let endpoint):
            [("url", .string(endpoint.url)), ("key", .string(endpoint.key))]
        case .timedOut(let until):
            [("until", .integer(until))]
        case .done:
            []
        }
    }

    static func name(of event: Event) -> String {
        switch event {
        case .state: "state"
        case .media: "media"
        case .tiles: "tiles"
        case .viewers: "viewers"
        case .message: "message"
        case .deleted: "deleted"
        case .cleared: "cleared"
        case .pinned: "pinned"
        case .slow: "slow"
        case .reactions: "reactions"
        case .you: "you"
        case .ended: "ended"
        case .access: "access"
        }
    }

    private static func members(_ event: Event) -> [(String, JSONValue)] {
        switch event {
        case .state(let state):
            [("state", .string(state.rawValue))]
        case .media(let main):
            [("media", .string(main == nil ? "off" : "on")), ("main", .optional(main?.rawValue))]
        case .tiles(let tiles, let main):
            [("tiles", .array(tiles.map { .string($0.rawValue) })), ("main", .optional(main?.rawValue))]
        case .viewers(let count):
            [("viewers", .integer(count))]
        case .message(let message):
            [("seq", .integer(message.id)), ("message", json(message))]
        case .deleted(let id, let seq):
            [("seq", .integer(seq)), ("message", .integer(id))]
        case .cleared(let seq):
            [("seq", .integer(seq))]
        case .pinned(let message):
            [("message", message.map(json) ?? .null)]
        case .slow(let seconds):
            [("seconds", .integer(seconds))]
        case .reactions(let counts):
            [("counts", .object(Reaction.allCases.compactMap { kind in
                counts[kind].map { (kind.rawValue, .integer($0)) }
            }))]
        case .you(let standing):
            [("you", json(standing))]
        case .ended(let reason):
            [("reason", .string(reason.rawValue))]
        case .access(let access):
            [("access", json(access))]
        }
    }

    // MARK: Decoding (the client side)

    /// Decodes a reply or an event (the client side).
    /// - Parameter bytes: one WebSocket text message from the server.
    /// - Returns: the message.
    /// - Throws: ``MessageError`` when it is not a message of this protocol.
    public static func decodeServerMessage(_ bytes: [UInt8]) throws(MessageError) -> ServerMessage {
        guard bytes.count <= maximumServerMessageSize else {
            throw MessageError(reason: "a server message is at most \(maximumServerMessageSize) bytes")
        }
        do throws(ShowError) {
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch {
                throw ShowError(.invalid, "not JSON: \(error)")
            }
            let fields = try FieldReader(value, context: "the message")
            if let event = try fields.optionalString("event") {
                return .event(try decodeEvent(event, fields))
            }
            guard let member = value["reply"] else {
                throw ShowError(.invalid, "neither a reply nor an event")
            }
            let id = member.isNull ? nil : try fields.integer("reply")
            guard try fields.bool("ok", default: false) else {
                let error = try fields.object("error")
                let retryAfter = try error.optionalInteger("retryAfter").map { Int(clamping: $0) }
                return .reply(id: id, .failure(ShowError(try error.choice("code", ErrorCode.self),
                                                         try error.string("reason"), retryAfter: retryAfter)))
            }
            return .reply(id: id, .success(try decodeReply(fields)))
        } catch {
            throw MessageError(reason: error.reason)
        }
    }

    private static func decodeReply(_ fields: FieldReader) throws(ShowError) -> Reply {
        if fields.has("show") {
            return .welcome(Welcome(show: try decodeSnapshot(fields.object("show")),
                                    you: try decodeStanding(fields.object("you")),
                                    chat: try decodeChat(fields.object("chat")),
                                    access: try fields.optionalObject("access").map(decodeAccess),
                                    visitor: try fields.optionalObject("visitor").map(decodeVisitor)))
        }
        if fields.has("message") { return .message(try decodeMessage(fields.object("message"))) }
        if fields.has("grants") {
            var grants: [PublishGrant] = []
            for element in try fields.array("grants") {
                let grant = try FieldReader(element, context: "a grant")
                grants.append(PublishGrant(tile: try grant.choice("tile", TileKind.self), url: try grant.string("url"),
                                           key: try grant.string("key"), expiresAt: try grant.integer("expiresAt")))
            }
            return .grants(grants)
        }
        if fields.has("key") {
            return .ingest(IngestEndpoint(url: try fields.string("url"), key: try fields.string("key")))
        }
        if fields.has("until") { return .timedOut(until: try fields.integer("until")) }
        return .done
    }

    private static func decodeEvent(_ name: String, _ fields: FieldReader) throws(ShowError) -> Event {
        switch name {
        case "state": return .state(try fields.choice("state", ShowState.self))
        case "media": return .media(main: try fields.optionalChoice("main", TileKind.self))
        case "tiles":
            return .tiles(try tiles(fields.array("tiles")), main: try fields.optionalChoice("main", TileKind.self))
        case "viewers": return .viewers(Int(clamping: try fields.integer("viewers")))
        case "message": return .message(try decodeMessage(fields.object("message")))
        case "deleted": return .deleted(id: try fields.integer("message"), seq: try fields.integer("seq"))
        case "cleared": return .cleared(seq: try fields.integer("seq"))
        case "pinned": return .pinned(try fields.optionalObject("message").map(decodeMessage))
        case "slow": return .slow(Int(clamping: try fields.integer("seconds")))
        case "reactions":
            let counts = try fields.object("counts")
            var result: [Reaction: Int] = [:]
            for kind in Reaction.allCases {
                if let count = try counts.optionalInteger(kind.rawValue) { result[kind] = Int(clamping: count) }
            }
            return .reactions(result)
        case "you": return .you(try decodeStanding(fields.object("you")))
        case "ended": return .ended(try fields.choice("reason", EndReason.self))
        case "access": return .access(try decodeAccess(fields.object("access")))
        default: throw ShowError(.invalid, "unknown event '\(name.prefix(40))'")
        }
    }

    private static func tiles(_ elements: [JSONValue]) throws(ShowError) -> [TileKind] {
        var tiles: [TileKind] = []
        for element in elements { tiles.append(try FieldReader.choice(element, TileKind.self, context: "tiles")) }
        return tiles
    }

    private static func decodeMessage(_ fields: FieldReader) throws(ShowError) -> ChatMessage {
        ChatMessage(id: try fields.integer("id"), user: try fields.optionalString("user"),
                    name: try fields.string("name"), role: try fields.choice("role", Role.self),
                    text: try fields.string("text"), time: try fields.integer("time"))
    }

    private static func decodeVisitor(_ fields: FieldReader) throws(ShowError) -> VisitorGrant {
        VisitorGrant(id: try fields.string("id"), token: try fields.string("token"))
    }

    private static func decodeAccess(_ fields: FieldReader) throws(ShowError) -> MediaAccess {
        MediaAccess(token: try fields.string("token"), expiresAt: try fields.integer("expiresAt"))
    }

    private static func decodeStanding(_ fields: FieldReader) throws(ShowError) -> SessionStanding {
        SessionStanding(user: try fields.optionalString("user"), name: try fields.string("name"),
                        role: try fields.choice("role", Role.self),
                        canWrite: try fields.bool("canWrite", default: false),
                        timeoutUntil: try fields.optionalInteger("timeoutUntil"))
    }

    private static func decodeSnapshot(_ fields: FieldReader) throws(ShowError) -> ShowSnapshot {
        var reactions: [Reaction] = []
        for element in try fields.array("reactions") {
            reactions.append(try FieldReader.choice(element, Reaction.self, context: "reactions"))
        }
        return ShowSnapshot(name: try fields.string("name"), title: try fields.optionalString("title"),
                            description: try fields.optionalString("description"),
                            state: try fields.choice("state", ShowState.self),
                            tiles: try tiles(fields.array("tiles")),
                            main: try fields.optionalChoice("main", TileKind.self),
                            viewers: Int(clamping: try fields.integer("viewers")),
                            pinned: try fields.optionalObject("pinned").map(decodeMessage),
                            slow: Int(clamping: try fields.integer("slow")), reactions: reactions)
    }

    private static func decodeChat(_ fields: FieldReader) throws(ShowError) -> ChatSync {
        var messages: [ChatMessage] = []
        for element in try fields.array("messages") {
            messages.append(try decodeMessage(FieldReader(element, context: "a message")))
        }
        var deleted: [Int64] = []
        for element in try fields.array("deleted") {
            guard let id = element.integerValue else { throw ShowError(.invalid, "chat.deleted holds ids") }
            deleted.append(id)
        }
        return ChatSync(epoch: try fields.string("epoch"), seq: try fields.integer("seq"),
                        reset: try fields.bool("reset", default: true), messages: messages, deleted: deleted)
    }
}
