import HTTP
import HTTPServer
import SDP

/// WHIP ingest into a live show (docs/webrtc.md, "A show's pictures over WHIP"): `POST
/// /v1/streams/{name}/whip?tile=camera|screen` with the host's access token or a `goLive` grant as the bearer and an
/// SDP offer makes that picture of the show live, as an RTMP publish with a grant does; a second picture is a
/// second session. The answer is `201 Created` with the session's `Location` (`/v1/streams/{name}/whip/{id}`,
/// 128 random bits: a capability, never logged); `DELETE` on it ends the picture.
///
/// Who may publish is `admit`'s decision (the show server's); its refusal's status is answered as it is (401 with
/// `WWW-Authenticate: Bearer`). Then as ``WHIPIngestRoutes``: not `application/sdp` 415, SDP that cannot be read
/// 400, no H.264 or Opus 406, every session slot taken 503 with `Retry-After`. The token never appears in a
/// response or a log line.
public struct WHIPShowRoutes: WebRTCRouteAnswers, Sendable {
    /// `admit`'s answer.
    public enum Admission: Sendable, Hashable {
        /// The publish may go ahead: its media is tagged so (see ``WHIPMediaEvent``; the app is the stream name).
        case admit(streamTag: String)
        /// Refused with this HTTP status and reason (never the token).
        case refuse(status: Int, reason: String)
    }

    /// The path under which a show's WHIP endpoint is, before the stream name.
    public static let prefix = "/v1/streams"
    /// The endpoint's last segment.
    public static let endpoint = "whip"

    private let server: WebRTCServer
    private let admit: @Sendable (_ stream: String, _ tile: String?, _ bearer: String?) async -> Admission
    private let abandoned: @Sendable (_ stream: String, _ streamTag: String) -> Void
    private let created: @Sendable (_ stream: String, _ streamTag: String, _ session: String) -> Void

    /// Creates the routes.
    /// - Parameters:
    ///   - server: the port the sessions run on.
    ///   - admit: whether this bearer may publish this picture (nil: the `tile` query is absent) of the show.
    ///   - abandoned: an admitted publish whose offer was then refused (bad SDP, the server full): it never starts.
    ///   - created: an admitted publish's session, by its id (for ``WebRTCServer/close(session:app:)``: the show's
    ///     end cuts it; a capability, never log it).
    public init(server: WebRTCServer,
                admit: @escaping @Sendable (_ stream: String, _ tile: String?, _ bearer: String?) async -> Admission,
                abandoned: @escaping @Sendable (_ stream: String, _ streamTag: String) -> Void,
                created: @escaping @Sendable (_ stream: String, _ streamTag: String, _ session: String) -> Void) {
        self.server = server
        self.admit = admit
        self.abandoned = abandoned
        self.created = created
    }

    /// Adds `POST` and `OPTIONS` on `/v1/streams/{name}/whip`, `DELETE` and `OPTIONS` on its sessions.
    public func add(to router: inout HTTPRouter) {
        let path = Self.prefix + "/{name}/" + Self.endpoint
        Self.addRoutes(to: &router, endpoint: path, session: path + "/{id}", post: post, delete: delete)
    }

    /// Answers a WHIP POST.
    public func post(_ request: HTTPRequest) async -> HTTPResponse {
        let name = request.parameters["name"] ?? ""
        let tag: String
        switch await admit(name, request.queryValue("tile"), request.bearerToken) {
        case .admit(let streamTag): tag = streamTag
        case .refuse(let status, let reason):
            var response = Self.refuse(HTTPStatus(code: status), reason)
            if status == 401 { response.headers.add("WWW-Authenticate", "Bearer") }
            // A full table clears as sessions end: say when to try again, as for a full port.
            if status == 503 { response.headers.add("Retry-After", "5") }
            return response
        }
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.filter { $0 != " " }.lowercased()
        guard type == "application/sdp" else {
            abandoned(name, tag)
            return Self.refuse(.unsupportedMediaType, "a WHIP offer is sent as Content-Type: application/sdp")
        }
        guard let offer = String(validating: request.body, as: UTF8.self) else {
            abandoned(name, tag)
            return Self.refuse(.badRequest, "the SDP offer is not UTF-8 text")
        }
        switch await server.publish(app: name, offer: offer, streamTag: tag) {
        case .created(let id, let answer):
            created(name, tag, id)
            var headers: HTTPHeaders = ["Content-Type": "application/sdp"]
            headers.add("Location", Self.prefix + "/" + name + "/" + Self.endpoint + "/" + id)
            headers.add("Access-Control-Allow-Origin", "*")
            headers.add("Access-Control-Expose-Headers", "Location")
            return HTTPResponse(status: .created, headers: headers, body: .bytes(Array(answer.utf8)))
        case .refused(let error):
            abandoned(name, tag)
            return WHIPIngestRoutes.response(for: error)
        }
    }

    /// Answers a DELETE on a session's Location: the unguessable address is what proves the caller made it (a grant
    /// has expired by then).
    public func delete(_ request: HTTPRequest) async -> HTTPResponse {
        guard let name = request.parameters["name"], let id = request.parameters["id"],
              await server.close(session: id, app: name) else {
            return Self.refuse(.notFound, "no such WHIP session: it ended already, or the address is wrong")
        }
        return HTTPResponse.status(.ok, message: "the WHIP session is over")
    }
}
