import HTTP
import HTTPServer
import SDP

/// WHEP playback of a live show (docs/webrtc.md, "A show over WHEP"): `POST /v1/streams/{name}/whep[?tile=…]` with
/// the viewer's access token, a session's media token or no `Authorization` (a visitor) and a recvonly SDP offer
/// answers `201 Created` with the answer and the player's `Location` (`/v1/streams/{name}/whep/{id}`, 128 random
/// bits: a capability, never logged); `DELETE` on it ends the player.
///
/// Who may play and which tile's WHIP publish is forwarded is `admit`'s decision (the show server's role rule and
/// bans, then the show's pictures); its refusal's status is answered as it is (401 with `WWW-Authenticate:
/// Bearer`). Then as ``WHEPPlaybackRoutes``: 415, 400, 406, and 503 with `Retry-After`. The token never appears in a
/// response or a log line.
public struct WHEPShowRoutes: WebRTCRouteAnswers, Sendable {
    /// `admit`'s answer.
    public enum Admission: Sendable, Hashable {
        /// Play the WHIP publish with this media tag (the app is the stream name); `player` is what `created` gets.
        case play(streamTag: String, player: WHEPShowPlayer)
        /// Refused with this HTTP status and reason (never the token).
        case refuse(status: Int, reason: String)
    }

    /// The endpoint's last segment.
    public static let endpoint = "whep"

    private let server: WebRTCServer
    private let admit: @Sendable (_ stream: String, _ tile: String?, _ bearer: String?) async -> Admission
    private let created: @Sendable (_ session: String, _ player: WHEPShowPlayer) -> Void
    private let deleted: @Sendable (_ session: String) -> Void

    /// Creates the routes.
    /// - Parameters:
    ///   - admit: whether this bearer may play this picture (nil: the main picture) of the show, and from where.
    ///   - created: a player's session, by its id (a capability, never log it): to follow the main picture and end
    ///     it on a ban.
    ///   - deleted: a player ended by its DELETE.
    public init(server: WebRTCServer,
                admit: @escaping @Sendable (_ stream: String, _ tile: String?, _ bearer: String?) async -> Admission,
                created: @escaping @Sendable (_ session: String, _ player: WHEPShowPlayer) -> Void,
                deleted: @escaping @Sendable (_ session: String) -> Void) {
        self.server = server
        self.admit = admit
        self.created = created
        self.deleted = deleted
    }

    /// Adds `POST` and `OPTIONS` on `/v1/streams/{name}/whep`, `DELETE` and `OPTIONS` on its sessions.
    public func add(to router: inout HTTPRouter) {
        let path = WHIPShowRoutes.prefix + "/{name}/" + Self.endpoint
        Self.addRoutes(to: &router, endpoint: path, session: path + "/{id}", post: post, delete: delete)
    }

    /// Answers a WHEP POST.
    public func post(_ request: HTTPRequest) async -> HTTPResponse {
        let name = request.parameters["name"] ?? ""
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.filter { $0 != " " }.lowercased()
        guard type == "application/sdp" else {
            return Self.refuse(.unsupportedMediaType, "a WHEP offer is sent as Content-Type: application/sdp")
        }
        guard let offer = String(validating: request.body, as: UTF8.self) else {
            return Self.refuse(.badRequest, "the SDP offer is not UTF-8 text")
        }
        let tag: String
        let player: WHEPShowPlayer
        switch await admit(name, request.queryValue("tile"), request.bearerToken) {
        case .play(let streamTag, let admitted):
            tag = streamTag
            player = admitted
        case .refuse(let status, let reason):
            var response = Self.refuse(HTTPStatus(code: status), reason)
            if status == 401 { response.headers.add("WWW-Authenticate", "Bearer") }
            // A full table clears as sessions end: say when to try again, as for a full port.
            if status == 503 { response.headers.add("Retry-After", "5") }
            return response
        }
        switch await server.play(app: name, streamTag: tag, offer: offer) {
        case .created(let id, let answer):
            created(id, player)
            var headers: HTTPHeaders = ["Content-Type": "application/sdp"]
            headers.add("Location", WHIPShowRoutes.prefix + "/" + name + "/" + Self.endpoint + "/" + id)
            headers.add("Access-Control-Allow-Origin", "*")
            headers.add("Access-Control-Expose-Headers", "Location")
            return HTTPResponse(status: .created, headers: headers, body: .bytes(Array(answer.utf8)))
        case .refused(let error):
            return WHIPIngestRoutes.response(for: error)
        }
    }

    /// Answers a DELETE on a player's Location: the unguessable address proves the caller made it.
    public func delete(_ request: HTTPRequest) async -> HTTPResponse {
        guard let name = request.parameters["name"], let id = request.parameters["id"],
              await server.close(session: id, app: name, playback: true) else {
            return Self.refuse(.notFound, "no such WHEP session: it ended already, or the address is wrong")
        }
        deleted(id)
        return HTTPResponse.status(.ok, message: "the WHEP session is over")
    }
}
