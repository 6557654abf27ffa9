import LiveProtocol

/// A show as one client knows it: the welcome and every event applied in order. Pure: no I/O, no clock.
///
/// The chat keeps the rule of `docs/live-protocol.md`: a message whose id is at or below the position the client
/// holds was applied already and is skipped, so a resynchronised join (`since`) and events racing it never show a
/// message twice; the position moves with every `message`, `deleted` and `cleared`, so the next join asks for
/// exactly what is missing.
public struct LiveStreamModel: Sendable, Hashable {
    /// The most messages kept; older ones are dropped from the front (the server's join history is 500).
    public static let maximumMessages = 1000

    /// What applying something tells the app.
    public enum Notice: Sendable, Hashable {
        /// Anything the show object exposes changed.
        case changed
        /// A new message arrived (already in ``messages``).
        case message(ChatMessage)
        /// Reactions since the last such event.
        case reactions([Reaction: Int])
        /// The session is over.
        case ended(EndReason)
    }

    /// The stream name.
    public let name: String
    /// The title its declaration gives it; nil: none.
    public private(set) var title: String?
    /// The description its declaration gives it; nil: none.
    public private(set) var description: String?
    /// idle, live or ended.
    public private(set) var state: ShowState = .idle
    /// The connection to the server: off, connecting, live, reconnecting.
    public private(set) var connection: MediaState = .connecting
    /// This app's own published media path (`goLive` on this object), as the media reports it: connecting until
    /// its first publish is live, reconnecting while a lost path is made again; nil when it publishes nothing.
    public private(set) var publishing: MediaState?
    /// Where the app is in the room of the stream (the seed's `media`): the connection, and while it is live, the
    /// path of what this app publishes: `reconnecting` when either is.
    public var media: MediaState {
        guard connection == .live, let publishing, publishing != .off else { return connection }
        return publishing
    }
    /// The published pictures.
    public private(set) var tiles: [TileKind] = []
    /// The main picture; nil when nothing is published.
    public private(set) var main: TileKind?
    /// Distinct people watching (hosts are not counted).
    public private(set) var viewers = 0
    /// The pinned message.
    public private(set) var pinned: ChatMessage?
    /// Slow mode in seconds, 0 when off.
    public private(set) var slow = 0
    /// The reactions the stream accepts (empty: declared without reactions).
    public private(set) var reactionKinds: [Reaction] = []
    /// This session's user, role and standing; nil before the first welcome.
    public private(set) var you: SessionStanding?
    /// The chat, oldest first.
    public private(set) var messages: [ChatMessage] = []
    /// The chat position held: the store's epoch and the last sequence number applied.
    public private(set) var position: ChatPosition?
    /// Reactions counted by kind since this session joined.
    public private(set) var reactionTotals: [Reaction: Int] = [:]
    /// Why the session is over, once it is.
    public private(set) var ended: EndReason?
    /// Messages dropped from the front to stay within ``maximumMessages``.
    public private(set) var droppedMessages = 0
    /// This session's grant to fetch the show's media (from the welcome, renewed by `access` events); nil from a
    /// server without one.
    public private(set) var access: MediaAccess?

    /// Creates the model of a stream not joined yet.
    public init(name: String) {
        self.name = name
    }

    /// Whether `send` would be taken now (slow mode aside).
    public var canWrite: Bool { you?.canWrite ?? false }

    /// Applies the welcome of a join (the first, or one after a reconnect with ``position`` as `since`).
    public mutating func apply(_ welcome: Welcome) -> [Notice] {
        let rejoining = position != nil
        let show = welcome.show
        title = show.title
        description = show.description
        state = show.state
        tiles = show.tiles
        main = show.main
        viewers = show.viewers
        pinned = show.pinned
        slow = show.slow
        reactionKinds = show.reactions
        you = welcome.you
        access = welcome.access
        connection = .live
        var notices: [Notice] = [.changed]
        let chat = welcome.chat
        if chat.reset || position?.epoch != chat.epoch {
            messages = []
            append(chat.messages)
        } else {
            let deleted = Set(chat.deleted)
            messages.removeAll { deleted.contains($0.id) }
            let held = position?.seq ?? 0
            let fresh = chat.messages.filter { $0.id > held }
            append(fresh)
            if rejoining { notices += fresh.map(Notice.message) }
        }
        position = chat.position
        return notices
    }

    /// Applies an event.
    public mutating func apply(_ event: Event) -> [Notice] {
        guard ended == nil else { return [] }  // the session is over: what the server sent before closing is moot
        switch event {
        case .state(let new):
            state = new
        case .media(let new):
            main = new
        case .tiles(let new, let newMain):
            tiles = new
            main = newMain
        case .viewers(let count):
            viewers = count
        case .message(let message):
            guard let held = position, message.id > held.seq else { return [] }
            append([message])
            position = ChatPosition(epoch: held.epoch, seq: message.id)
            return [.changed, .message(message)]
        case .deleted(let id, let seq):
            messages.removeAll { $0.id == id }
            advance(to: seq)
        case .cleared(let seq):
            messages = []
            advance(to: seq)
        case .pinned(let message):
            pinned = message
        case .slow(let seconds):
            slow = seconds
        case .reactions(let counts):
            for (kind, count) in counts { reactionTotals[kind, default: 0] += count }
            return [.reactions(counts)]
        case .you(let standing):
            you = standing
        case .ended(let reason):
            ended = reason
            connection = .off
            return [.changed, .ended(reason)]
        case .access(let renewed):
            access = renewed
        }
        return [.changed]
    }

    /// The connection was lost and the client is reconnecting.
    public mutating func connectionLost() -> [Notice] {
        guard ended == nil, connection != .reconnecting else { return [] }
        connection = .reconnecting
        return [.changed]
    }

    /// The session is over without an `ended` event (the client gave up or was refused on reconnect).
    public mutating func stopped() -> [Notice] {
        guard connection != .off else { return [] }
        connection = .off
        return [.changed]
    }

    /// The app's published media path changed (nil or `off`: it publishes nothing now).
    public mutating func publishingChanged(_ state: MediaState?) -> [Notice] {
        let new = state == .off ? nil : state
        guard new != publishing else { return [] }
        let before = media
        publishing = new
        return media == before ? [] : [.changed]
    }

    private mutating func advance(to seq: Int64) {
        guard let held = position, seq > held.seq else { return }
        position = ChatPosition(epoch: held.epoch, seq: seq)
    }

    private mutating func append(_ new: [ChatMessage]) {
        messages += new
        let excess = messages.count - Self.maximumMessages
        if excess > 0 {
            messages.removeFirst(excess)
            droppedMessages += excess
        }
    }
}
