import JSON

/// What a show card needs to know about a stream without joining it (`GET /v1/streams/{name}`, and each element of
/// `GET /v1/streams?pattern=…`): public fields only, as anyone the declaration lets watch may see them.
public struct StreamStatus: Sendable, Hashable {
    /// The stream name.
    public var name: String
    /// The declaration's title; nil: none.
    public var title: String?
    /// The declaration's description; nil: none.
    public var description: String?
    /// idle, live or ended.
    public var state: ShowState
    /// Distinct people watching now (hosts are not counted).
    public var viewers: Int
    /// The published pictures, in ``TileKind`` order.
    public var tiles: [TileKind]
    /// The main picture; nil when nothing is published.
    public var main: TileKind?
    /// When the show last went live (milliseconds since 1970); nil while it is not live.
    public var startedAt: Int64?

    /// Creates a status.
    public init(name: String, title: String?, description: String?, state: ShowState, viewers: Int,
                tiles: [TileKind], main: TileKind?, startedAt: Int64?) {
        self.name = name
        self.title = title
        self.description = description
        self.state = state
        self.viewers = viewers
        self.tiles = tiles
        self.main = main
        self.startedAt = startedAt
    }
}

extension LiveCodec {
    /// A status as docs/live-protocol.md ("Status") shows it; `watch` is the page's path, `poster` the path of the
    /// main picture's JPEG while the show is live with a picture (null otherwise).
    public static func json(_ status: StreamStatus) -> JSONValue {
        .object([("name", .string(status.name))] + (status.title.map { [("title", .string($0))] } ?? [])
                + (status.description.map { [("description", .string($0))] } ?? []) + [
            ("state", .string(status.state.rawValue)), ("viewers", .integer(status.viewers)),
            ("tiles", .array(status.tiles.map { .string($0.rawValue) })), ("main", .optional(status.main?.rawValue)),
            ("startedAt", status.startedAt.map { .integer($0) } ?? .null),
            ("watch", .string("/watch/" + status.name)),
            ("poster", status.state == .live && status.main != nil
                ? .string("/v1/streams/" + status.name + "/poster.jpg") : .null),
        ])
    }

    /// The answer to `GET /v1/streams?pattern=…`: the live streams the caller may watch, by name.
    public static func encode(_ statuses: [StreamStatus]) -> [UInt8] {
        JSONWriter.bytes(.object([("streams", .array(statuses.map(json)))]))
    }

    /// The answer to `GET /v1/streams/{name}`.
    public static func encode(_ status: StreamStatus) -> [UInt8] {
        JSONWriter.bytes(json(status))
    }
}
