import HTTP
import HTTPServer
import SDP

/// WHIP ingest over HTTP (RFC 9725) for a ``WebRTCServer``: `POST /whip/{app}` with a stream key as the bearer
/// token and an SDP offer answers `201 Created` with the answer and the session's `Location`
/// (`/whip/{app}/session/{id}`, 128 random bits); `DELETE` on it ends the session.
///
/// Refusals: no or empty key, or one `authorize` refuses: 401 (`WWW-Authenticate: Bearer`); not `application/sdp`:
/// 415; SDP that cannot be read: 400 with the SDP error (it names the line); no H.264 or Opus, or no BUNDLE: 406;
/// every session slot taken: 503 with `Retry-After`; the key publishing over another protocol: 409; an app name
/// outside `[A-Za-z0-9._-]{1,64}`: 404. `PATCH` (trickle ICE, ICE restart) is 405: neither is supported.
/// `OPTIONS` answers CORS preflights with `Accept-Post: application/sdp` (RFC 9725 §4.2). The key never appears
/// in a response, and the session id is never logged.
public struct WHIPIngestRoutes: WebRTCRouteAnswers, Sendable {
    /// The route prefix.
    public static let prefix = "/whip"

    private let server: WebRTCServer
    private let authorize: @Sendable (String) -> Bool
    private let streamTag: (@Sendable (_ app: String, _ key: String) -> String)?
    private let conflict: (@Sendable (_ app: String, _ key: String) -> String?)?

    /// Creates the routes.
    /// - Parameters:
    ///   - server: the port the sessions run on.
    ///   - authorize: whether a (non-empty) stream key may publish: `--keys-file`'s check, as for RTMP.
    ///   - streamTag: the publish's media tag from its app and key (a keyed hash, never the key), which names its
    ///     LL-HLS address; nil: the media is not passed on.
    ///   - conflict: why an authorized key may not publish now (it is publishing over another protocol), answered
    ///     409; nil: it may.
    public init(server: WebRTCServer, authorize: @escaping @Sendable (String) -> Bool,
                streamTag: (@Sendable (_ app: String, _ key: String) -> String)? = nil,
                conflict: (@Sendable (_ app: String, _ key: String) -> String?)? = nil) {
        self.server = server
        self.authorize = authorize
        self.streamTag = streamTag
        self.conflict = conflict
    }

    /// Adds `POST` and `OPTIONS` on `/whip/{app}`, `DELETE` and `OPTIONS` on `/whip/{app}/session/{id}`.
    public func add(to router: inout HTTPRouter) {
        Self.addRoutes(to: &router, endpoint: Self.prefix + "/{app}", session: Self.prefix + "/{app}/session/{id}",
                       post: post, delete: delete)
    }

    /// Answers a WHIP POST.
    public func post(_ request: HTTPRequest) async -> HTTPResponse {
        guard let app = Self.app(request) else { return Self.refuse(.notFound, "no WHIP endpoint at this path") }
        if let refusal = check(request) { return refusal }
        if let key = request.bearerToken, let reason = conflict?(app, key) {
            return Self.refuse(.conflict, reason)
        }
        let tag = request.bearerToken.flatMap { key in streamTag?(app, key) }
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.filter { $0 != " " }.lowercased()
        guard type == "application/sdp" else {
            return Self.refuse(.unsupportedMediaType, "a WHIP offer is sent as Content-Type: application/sdp")
        }
        guard let offer = String(validating: request.body, as: UTF8.self) else {
            return Self.refuse(.badRequest, "the SDP offer is not UTF-8 text")
        }
        switch await server.publish(app: app, offer: offer, streamTag: tag) {
        case .created(let id, let answer):
            var headers: HTTPHeaders = ["Content-Type": "application/sdp"]
            headers.add("Location", Self.prefix + "/" + app + "/session/" + id)
            headers.add("Access-Control-Allow-Origin", "*")
            headers.add("Access-Control-Expose-Headers", "Location")
            return HTTPResponse(status: .created, headers: headers, body: .bytes(Array(answer.utf8)))
        case .refused(let error):
            return Self.response(for: error)
        }
    }

    /// Answers a DELETE on a session's Location.
    public func delete(_ request: HTTPRequest) async -> HTTPResponse {
        guard let app = Self.app(request), let id = request.parameters["id"] else {
            return Self.refuse(.notFound, "no WHIP session at this path")
        }
        if let refusal = check(request) { return refusal }
        guard await server.close(session: id, app: app) else {
            return Self.refuse(.notFound, "no such WHIP session: it ended already, or the address is wrong")
        }
        return HTTPResponse.status(.ok, message: "the WHIP session is over")
    }

    /// The HTTP answer to a refused offer.
    public static func response(for error: WebRTCServerError) -> HTTPResponse {
        switch error.code {
        case .badOffer: return refuse(.badRequest, error.reason)
        case .unsupportedOffer: return refuse(HTTPStatus(code: 406), error.reason)
        case .full:
            var response = refuse(.serviceUnavailable, error.reason)
            response.headers.add("Retry-After", "\(error.retryAfter ?? 5)")
            return response
        case .setup: return refuse(.serviceUnavailable, error.reason)
        case .notFound: return refuse(.notFound, error.reason)
        }
    }

    /// The stream key check: 401 without a key, or with one `authorize` refuses (RFC 9725 §4.5, RFC 6750 §3).
    private func check(_ request: HTTPRequest) -> HTTPResponse? {
        guard let key = request.bearerToken else {
            return Self.unauthorized("a stream key is required: send it as Authorization: Bearer <stream key>")
        }
        guard authorize(key) else {
            return Self.unauthorized("this stream key may not publish here: check the key")
        }
        return nil
    }

    private static func app(_ request: HTTPRequest) -> String? {
        guard let app = request.parameters["app"], (1...64).contains(app.utf8.count),
              app.utf8.allSatisfy({ byte in
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
              }) else { return nil }
        return app
    }

    private static func unauthorized(_ message: String) -> HTTPResponse {
        var response = refuse(.unauthorized, message)
        response.headers.add("WWW-Authenticate", "Bearer")
        return response
    }
}
