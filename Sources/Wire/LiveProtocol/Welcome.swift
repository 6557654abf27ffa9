/// Everything a session needs when it joins: the show, the session's own standing, and the chat.
public struct Welcome: Sendable, Hashable {
    /// The show as it is now.
    public var show: ShowSnapshot
    /// This session's user, role and standing.
    public var you: SessionStanding
    /// The chat: the whole history, or what was missed since the position given.
    public var chat: ChatSync
    /// The grant to fetch the show's media (its LL-HLS playlists and parts); nil from a server without one.
    public var access: MediaAccess?
    /// A visitor's identity, to keep and bring back at the next join; nil for a signed-in user.
    public var visitor: VisitorGrant?

    /// Creates a welcome.
    public init(show: ShowSnapshot, you: SessionStanding, chat: ChatSync, access: MediaAccess? = nil,
                visitor: VisitorGrant? = nil) {
        self.show = show
        self.you = you
        self.chat = chat
        self.access = access
        self.visitor = visitor
    }
}

/// A visitor's stable identity, given in its welcome: the `id` that its messages carry as their `user` (and that
/// moderators name), and the `token` that proves it, which the visitor keeps (a browser in its storage) and sends
/// back in its next `join`: slow mode, timeouts, kicks and bans then follow it across reconnects. A secret, like an
/// access token.
public struct VisitorGrant: Sendable, Hashable {
    /// "visitor:" and 22 characters.
    public var id: String
    /// The proof of the id; never logged, never shown.
    public var token: String

    /// Creates a grant.
    public init(id: String, token: String) {
        self.id = id
        self.token = token
    }
}

/// A session's grant to fetch its show's media: a token that goes in the media's path
/// (`/hls/{stream}/{token}/main.m3u8`, docs/hls.md), given in the welcome and renewed by an `access` event before
/// it expires. It is the session's own, like its access token: never logged, never shown.
public struct MediaAccess: Sendable, Hashable {
    /// The media token (only characters of a URL path segment).
    public var token: String
    /// When it stops working, in milliseconds since 1970; a new one comes well before.
    public var expiresAt: Int64

    /// Creates a grant.
    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// A show's state, pictures, count, pinned message, slow mode and reactions.
public struct ShowSnapshot: Sendable, Hashable {
    /// The stream name, e.g. "show:mugs".
    public var name: String
    /// The title its declaration gives it; nil: none.
    public var title: String?
    /// The description its declaration gives it (line feeds allowed); nil: none.
    public var description: String?
    /// idle, live or ended.
    public var state: ShowState
    /// The published pictures, in ``TileKind`` order.
    public var tiles: [TileKind]
    /// The main picture; nil when nothing is published.
    public var main: TileKind?
    /// Distinct people watching (hosts are not counted).
    public var viewers: Int
    /// The pinned message, if any.
    public var pinned: ChatMessage?
    /// Slow mode in seconds, 0 when off.
    public var slow: Int
    /// The reactions accepted; empty when the stream declared none.
    public var reactions: [Reaction]

    /// Creates a snapshot.
    public init(name: String, title: String? = nil, description: String? = nil, state: ShowState, tiles: [TileKind],
                main: TileKind?, viewers: Int, pinned: ChatMessage?, slow: Int, reactions: [Reaction]) {
        self.name = name
        self.title = title
        self.description = description
        self.state = state
        self.tiles = tiles
        self.main = main
        self.viewers = viewers
        self.pinned = pinned
        self.slow = slow
        self.reactions = reactions
    }
}

/// One session's user, role and whether it may write now.
public struct SessionStanding: Sendable, Hashable {
    /// The app user id; nil for a visitor.
    public var user: String?
    /// The display name its messages carry.
    public var name: String
    /// Its role in this stream.
    public var role: Role
    /// Whether `send` would be taken now (slow mode aside).
    public var canWrite: Bool
    /// While timed out, when the timeout ends (milliseconds since 1970).
    public var timeoutUntil: Int64?

    /// Creates a standing.
    public init(user: String?, name: String, role: Role, canWrite: Bool, timeoutUntil: Int64? = nil) {
        self.user = user
        self.name = name
        self.role = role
        self.canWrite = canWrite
        self.timeoutUntil = timeoutUntil
    }
}

/// The chat part of a welcome.
///
/// With `reset` the client replaces its messages with `messages` (the history, oldest first). Without it the
/// client keeps what it has, removes `deleted`, and appends `messages` (everything newer than its position): no
/// message twice, none missing.
public struct ChatSync: Sendable, Hashable {
    /// The store's epoch.
    public var epoch: String
    /// The chat sequence number these messages bring the client to.
    public var seq: Int64
    /// Whether the client must replace its messages (its position was unknown, too old, or from another epoch).
    public var reset: Bool
    /// The history (reset) or the messages after the client's position, oldest first.
    public var messages: [ChatMessage]
    /// Without reset: ids of messages at or before the client's position that were deleted since.
    public var deleted: [Int64]

    /// Creates a chat sync.
    public init(epoch: String, seq: Int64, reset: Bool, messages: [ChatMessage], deleted: [Int64]) {
        self.epoch = epoch
        self.seq = seq
        self.reset = reset
        self.messages = messages
        self.deleted = deleted
    }

    /// The position a client holds after applying this.
    public var position: ChatPosition { ChatPosition(epoch: epoch, seq: seq) }
}

/// What `goLive` gives the host for one picture: where to publish it over RTMP(S) and with which key.
public struct PublishGrant: Sendable, Hashable {
    /// The picture this grant publishes.
    public var tile: TileKind
    /// The ingest URL, e.g. "rtmp://127.0.0.1:1935/live".
    public var url: String
    /// The stream key to publish with; a secret, valid to start publishing until `expiresAt`.
    public var key: String
    /// When the grant can no longer start a publish (milliseconds since 1970).
    public var expiresAt: Int64

    /// Creates a grant.
    public init(tile: TileKind, url: String, key: String, expiresAt: Int64) {
        self.tile = tile
        self.url = url
        self.key = key
        self.expiresAt = expiresAt
    }
}

/// What `ingest` gives the host for OBS: the server URL and the stream key.
public struct IngestEndpoint: Sendable, Hashable {
    /// The ingest URL, e.g. "rtmp://127.0.0.1:1935/live".
    public var url: String
    /// The stream key; a secret, valid until renewed.
    public var key: String

    /// Creates an endpoint.
    public init(url: String, key: String) {
        self.url = url
        self.key = key
    }
}
