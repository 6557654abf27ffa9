/// What a client asks of a stream: one op of `docs/live-protocol.md`.
public enum Request: Sendable, Hashable {
    /// Enter the stream (the first request of every connection), optionally resuming the chat from a position. A
    /// visitor (no access token) brings back the visitor token of its last welcome, and may choose a display name.
    case join(since: ChatPosition?, visitor: String? = nil, name: String? = nil)
    /// Leave: the reply, then `ended(left)` and the close.
    case leave
    /// Write a chat message.
    case send(text: String)
    /// React (streams declared with reactions).
    case react(Reaction)
    /// Host: get publish grants for these pictures (the camera when none are named).
    case goLive(tiles: [TileKind])
    /// Host: stop every picture; the show becomes ended.
    case end
    /// Host: the OBS URL and key; `renew` makes a new key and cuts a publisher using the old one.
    case ingest(renew: Bool)
    /// Host: choose the main picture, or nil to follow the default order.
    case setMain(TileKind?)
    /// Host or mod: delete a message.
    case deleteMessage(id: Int64)
    /// Host or mod: pin a message.
    case pin(id: Int64)
    /// Host or mod: remove the pinned message.
    case unpin
    /// Host or mod: stop a user writing for 60 to 86,400 seconds; they go on watching.
    case timeout(user: String, seconds: Int)
    /// Host or mod: slow mode in seconds (0 turns it off).
    case setSlow(seconds: Int)
    /// Host or mod: delete every message.
    case clearChat
    /// Host or mod: close every session of a user now; they may come back.
    case kick(user: String)
    /// Host or mod: close every session of a user and refuse them until unbanned.
    case ban(user: String)
    /// Host or mod: lift a ban.
    case unban(user: String)

    /// The op's name on the wire.
    public var op: String {
        switch self {
        case .join: "join"
        case .leave: "leave"
        case .send: "send"
        case .react: "react"
        case .goLive: "goLive"
        case .end: "end"
        case .ingest: "ingest"
        case .setMain: "setMain"
        case .deleteMessage: "deleteMessage"
        case .pin: "pin"
        case .unpin: "unpin"
        case .timeout: "timeout"
        case .setSlow: "setSlow"
        case .clearChat: "clearChat"
        case .kick: "kick"
        case .ban: "ban"
        case .unban: "unban"
        }
    }
}

/// A request with the id the client chose; the reply carries the same id.
public struct ClientRequest: Sendable, Hashable {
    /// The client's id for the request (a whole number from 0 to 2^53).
    public var id: Int64
    /// The request.
    public var request: Request

    /// Creates a request.
    public init(id: Int64, _ request: Request) {
        self.id = id
        self.request = request
    }
}
