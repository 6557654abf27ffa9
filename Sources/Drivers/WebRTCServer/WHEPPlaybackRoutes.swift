import HTTP
import HTTPServer
import SDP

/// WHEP playback over HTTP for a ``WebRTCServer``: `POST /whep/{app}/{tag}` with a recvonly SDP offer answers
/// `201 Created` with the answer (sendonly) and the player session's `Location` (`/whep/{app}/{tag}/session/{id}`,
/// 128 random bits); `DELETE` on it ends the session. `{app}/{tag}` is a plain WHIP publish's LL-HLS address
/// (`/hls/{app}/{tag}/`): the tag is a keyed hash of the app and key, unguessable, so it is the capability and no
/// bearer token is asked for.
///
/// Refusals: nothing publishing there: 404 (counted by the miss limiter that guards `/hls/{app}/{tag}/`, which
/// answers 429 with `Retry-After` past its bound); not `application/sdp`: 415; SDP that cannot be read: 400; no
/// H.264 in packetization mode 1: 406; every session slot taken: 503 with `Retry-After`. `PATCH` is 405.
public struct WHEPPlaybackRoutes: WebRTCRouteAnswers, Sendable {
    /// The route prefix.
    public static let prefix = "/whep"

    private let server: WebRTCServer
    private let misses: MissLimiter?

    /// Creates the routes.
    /// - Parameter misses: the limiter of requests for streams that do not exist (shared with LL-HLS); nil: none.
    public init(server: WebRTCServer, misses: MissLimiter? = nil) {
        self.server = server
        self.misses = misses
    }

    /// Adds `POST` and `OPTIONS` on `/whep/{app}/{tag}`, `DELETE` and `OPTIONS` on its sessions.
    public func add(to router: inout HTTPRouter) {
        Self.addRoutes(to: &router, endpoint: Self.prefix + "/{app}/{tag}",
                       session: Self.prefix + "/{app}/{tag}/session/{id}", headers: "Content-Type",
                       post: post, delete: delete)
    }

    /// Answers a WHEP POST.
    public func post(_ request: HTTPRequest) async -> HTTPResponse {
        let client = MissLimiter.client(of: request.remoteAddress)
        if let misses, let wait = misses.retryAfter(client) {
            var response = Self.refuse(.tooManyRequests, "too many requests for streams that do not exist: wait "
                + "\(wait) s")
            response.headers.add("Retry-After", String(wait))
            return response
        }
        guard let app = Self.name(request.parameters["app"]), let tag = Self.name(request.parameters["tag"]) else {
            misses?.missed(client)
            return Self.refuse(.notFound, "no WHEP endpoint at this path")
        }
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.filter { $0 != " " }.lowercased()
        guard type == "application/sdp" else {
            return Self.refuse(.unsupportedMediaType, "a WHEP offer is sent as Content-Type: application/sdp")
        }
        guard let offer = String(validating: request.body, as: UTF8.self) else {
            return Self.refuse(.badRequest, "the SDP offer is not UTF-8 text")
        }
        switch await server.play(app: app, streamTag: tag, offer: offer) {
        case .created(let id, let answer):
            var headers: HTTPHeaders = ["Content-Type": "application/sdp"]
            headers.add("Location", Self.prefix + "/" + app + "/" + tag + "/session/" + id)
            headers.add("Access-Control-Allow-Origin", "*")
            headers.add("Access-Control-Expose-Headers", "Location")
            return HTTPResponse(status: .created, headers: headers, body: .bytes(Array(answer.utf8)))
        case .refused(let error):
            if error.code == .notFound { misses?.missed(client) }
            return WHIPIngestRoutes.response(for: error)
        }
    }

    /// Answers a DELETE on a player session's Location.
    public func delete(_ request: HTTPRequest) async -> HTTPResponse {
        guard let app = Self.name(request.parameters["app"]), let id = request.parameters["id"],
              await server.close(session: id, app: app, playback: true) else {
            return Self.refuse(.notFound, "no such WHEP session: it ended already, or the address is wrong")
        }
        return HTTPResponse.status(.ok, message: "the WHEP session is over")
    }

    /// An app or tag: 1 to 64 of `A–Z a–z 0–9 . _ -`.
    private static func name(_ value: String?) -> String? {
        guard let value, (1...64).contains(value.utf8.count),
              value.utf8.allSatisfy({ byte in
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
              }) else { return nil }
        return value
    }
}
