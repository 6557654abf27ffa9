import Identity
import LiveProtocol

/// Who may publish a show's picture over WHIP (`POST /v1/streams/{name}/whip?tile=…`, docs/webrtc.md), decided
/// without sockets: the bearer is the host's access token or a `goLive` publish grant, and the answer is the ticket
/// the publish goes live under, as an RTMP publish's with a grant, or the HTTP refusal.
///
/// Two steps, because the second needs the show loaded: ``check(stream:tile:bearer:now:catalog:secret:credentials:)``
/// reads the request and the token (401, 400, 404, 403), ``admit(_:entry:publishing:)`` looks at the show's
/// generation and its busy pictures (409). No reason ever quotes the token.
public enum ShowWHIPAdmission {
    /// What a request asks for, once its token checks out.
    public struct Request: Sendable, Hashable {
        /// The stream name.
        public var show: String
        /// The picture.
        public var tile: TileKind
        /// The grant's generation; nil for the host's access token (the show's current one is used).
        public var grantGeneration: Int64?

        /// Creates a request.
        public init(show: String, tile: TileKind, grantGeneration: Int64?) {
            self.show = show
            self.tile = tile
            self.grantGeneration = grantGeneration
        }
    }

    /// Why a publish is refused: the HTTP status and words a person can act on.
    public struct Refusal: Error, Sendable, Hashable {
        /// 400, 401, 403, 404 or 409 (503 from a server that cannot load the show).
        public var status: Int
        /// What is wrong, never with the token.
        public var reason: String

        /// Creates a refusal.
        public init(status: Int, reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    /// The pictures a WHIP publish may be: OBS's is the ingest key's, over RTMP.
    public static let tiles: [TileKind] = [.camera, .screen]

    /// Reads a request: no bearer 401; a tile other than `camera` or `screen` 400 (none is `camera`, as for
    /// `goLive`); a name no declaration matches 404; a bad, expired or foreign token 401; a grant for another show
    /// or picture, or a user who is not a host of the show, 403.
    /// - Parameters:
    ///   - now: milliseconds since 1970.
    public static func check(stream: String, tile: String?, bearer: String?, now: Int64, catalog: StreamCatalog,
                             secret: TokenSecret, credentials: IngestCredentials) -> Result<Request, Refusal> {
        guard let bearer, !bearer.isEmpty else {
            return .failure(Refusal(status: 401, reason: "send the host's access token or a goLive grant as "
                                        + "Authorization: Bearer <token>"))
        }
        guard let kind = tile.map({ TileKind(rawValue: $0) }) ?? .camera, Self.tiles.contains(kind) else {
            return .failure(Refusal(status: 400, reason: "tile is camera or screen"))
        }
        guard let (declaration, parameters) = catalog.resolve(stream) else {
            return .failure(Refusal(status: 404, reason: "no stream is declared as \(stream.prefix(128))"))
        }
        if bearer.hasPrefix(IngestCredentials.grantPrefix) {
            guard let claims = credentials.readGrant(bearer) else {
                return .failure(Refusal(status: 401, reason: "not a valid publish grant: ask goLive for another"))
            }
            guard now <= claims.expiresAt else {
                return .failure(Refusal(status: 401, reason: "the publish grant expired: ask goLive for another"))
            }
            guard claims.show == stream, claims.tile == kind else {
                return .failure(Refusal(status: 403, reason: "this grant is for another show or picture: "
                                            + "publish with it where goLive said"))
            }
            return .success(Request(show: stream, tile: kind, grantGeneration: claims.generation))
        }
        let user: String
        do {
            user = try AccessToken.verify(bearer, secret: secret, now: now / 1000).subject
        } catch {
            return .failure(Refusal(status: 401, reason: error.reason))
        }
        guard !VisitorPass.isVisitor(user), declaration.role(user, parameters) == .host else {
            return .failure(Refusal(status: 403, reason: "only a host of \(stream.prefix(128)) may publish to it"))
        }
        return .success(Request(show: stream, tile: kind, grantGeneration: nil))
    }

    /// Admits a checked request against the show's entry (nil: a show with nothing recorded, generation 0).
    /// - Parameter publishing: whether that picture of the show is being published now (one publisher a picture).
    /// - Returns: the ticket, or 409: the show ended (a grant from before it, or the host's token: `goLive`
    ///   reopens it), or the picture is busy.
    public static func admit(_ request: Request, entry: IngestDirectory.Entry?,
                             publishing: Bool) -> Result<IngestDirectory.Ticket, Refusal> {
        let entry = entry ?? IngestDirectory.Entry(generation: 0, ended: false, keyHash: nil)
        if let generation = request.grantGeneration, generation != entry.generation || entry.ended {
            return .failure(Refusal(status: 409, reason: "the publish grant is from before the show ended: "
                                        + "ask goLive for another"))
        }
        guard !entry.ended else {
            return .failure(Refusal(status: 409, reason: "the host ended the show: goLive reopens it"))
        }
        guard !publishing else {
            return .failure(Refusal(status: 409, reason: "the \(request.tile.rawValue) picture is already being "
                                        + "published: stop that publish first"))
        }
        return .success(IngestDirectory.Ticket(show: request.show, tile: request.tile, generation: entry.generation,
                                               keyHash: nil))
    }
}
