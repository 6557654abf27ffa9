import LiveProtocol

/// A change a show asks its store to make. The store commits it (or, for ``kick`` and ``reaction``, just passes
/// it on to every node) and answers with the ``StoreFact`` that happened, which is what shows apply: every node
/// serving the show applies the same facts in the same order, so nothing in a show assumes one process.
public enum StoreWrite: Sendable, Hashable {
    /// A chat message: the store gives it the show's next chat sequence number as its id.
    case message(MessageDraft)
    /// Delete a message (a new sequence number); if it was pinned, it is unpinned.
    case deleteMessage(id: Int64)
    /// Delete every message (a new sequence number).
    case clearChat
    /// Pin a message, or unpin with nil.
    case pin(id: Int64?)
    /// Slow mode in seconds.
    case slow(Int)
    /// Ban a user.
    case ban(user: String)
    /// Lift a ban.
    case unban(user: String)
    /// Time a user out until a moment (milliseconds since 1970).
    case timeout(user: String, until: Int64)
    /// Close every session of a user on every node (not stored).
    case kick(user: String)
    /// A reaction, for every node's watchers (not stored).
    case reaction(Reaction)
    /// Replace the OBS key.
    case ingestKey(IngestKeyRecord)
    /// A picture started publishing under a generation.
    case tileStarted(TileKind, generation: Int64)
    /// A picture stopped publishing.
    case tileStopped(TileKind, generation: Int64)
    /// The host ended the show.
    case end
    /// The host goes live again after an end.
    case reopen
    /// The host's choice of main picture.
    case setMain(TileKind?)
}

extension StoreWrite {
    /// The fact of a write that is not stored (a kick, a reaction): a store passes it on without touching its
    /// tables. Nil for every write a store commits.
    public var unstoredFact: StoreFact? {
        switch self {
        case .kick(let user): .kicked(user: user)
        case .reaction(let reaction): .reaction(reaction)
        case .message, .deleteMessage, .clearChat, .pin, .slow, .ban, .unban, .timeout, .ingestKey, .tileStarted,
             .tileStopped, .end, .reopen, .setMain:
            nil
        }
    }
}

/// A chat message before the store numbers it.
public struct MessageDraft: Sendable, Hashable {
    /// The writer's user id; nil for a visitor.
    public var user: String?
    /// The writer's display name.
    public var name: String
    /// The writer's role.
    public var role: Role
    /// The text.
    public var text: String
    /// When it was accepted (milliseconds since 1970).
    public var time: Int64

    /// Creates a draft.
    public init(user: String?, name: String, role: Role, text: String, time: Int64) {
        self.user = user
        self.name = name
        self.role = role
        self.text = text
        self.time = time
    }

    /// The message once the store gave it an id.
    public func committed(id: Int64) -> ChatMessage {
        ChatMessage(id: id, user: user, name: name, role: role, text: text, time: time)
    }
}

/// What a store committed (or passed on), as shows apply it.
public enum StoreFact: Sendable, Hashable {
    /// A message, with its id (its chat sequence number).
    case message(ChatMessage)
    /// A message deleted at chat sequence number `seq`.
    case deleted(id: Int64, seq: Int64)
    /// The chat cleared at chat sequence number `seq`.
    case cleared(seq: Int64)
    /// The pinned message now (nil: none).
    case pinned(ChatMessage?)
    /// Slow mode now.
    case slow(Int)
    /// A user banned.
    case banned(user: String)
    /// A ban lifted.
    case unbanned(user: String)
    /// A user timed out until then.
    case timedOut(user: String, until: Int64)
    /// A user kicked.
    case kicked(user: String)
    /// A reaction.
    case reaction(Reaction)
    /// The OBS key now.
    case ingestKey(IngestKeyRecord)
    /// The pictures now.
    case media(MediaRecord)
    /// Watchers elsewhere (another node): `delta` sessions of the watcher `key` came or went. A single-node
    /// store never sends it.
    case presence(key: String, delta: Int)
}

/// A store that could not commit; nothing of the batch was changed.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, for a caller that reacts to each differently.
    public enum Code: Sendable, Hashable {
        /// The store cannot be opened or reached, or a read or write failed: nothing changed; try again.
        case unavailable
        /// What the write names is not in the store (a message deleted meanwhile).
        case notFound
        /// The store's data is damaged, or from a newer version: a person must act before it is used.
        case damaged
        /// Another server holds the store.
        case inUse
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong (never holds a secret).
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
