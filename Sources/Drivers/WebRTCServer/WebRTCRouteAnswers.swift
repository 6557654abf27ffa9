import HTTP
import HTTPServer
import SDP

/// The answers every WHIP and WHEP route shares: a refusal in words and a CORS preflight (RFC 9725 §4.2), with the
/// cross-origin headers a browser page on another origin needs to read them.
protocol WebRTCRouteAnswers {}

extension WebRTCRouteAnswers {
    /// A refusal: `message` as text, readable by a page on any origin.
    static func refuse(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        var response = HTTPResponse.text(message + "\n", status: status)
        response.headers.add("Access-Control-Allow-Origin", "*")
        return response
    }

    /// Adds a WHIP or WHEP endpoint's four routes: `POST` of an offer and its `OPTIONS` at `endpoint`, `DELETE` of
    /// a session and its `OPTIONS` at `session` (the endpoint's path with the session's `{id}`). `headers`: the
    /// request headers a page may send (see ``preflight(allow:headers:)``).
    static func addRoutes(to router: inout HTTPRouter, endpoint: String, session: String,
                          headers: String = "Authorization, Content-Type",
                          post: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
                          delete: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        let endpointPreflight = preflight(allow: "OPTIONS, POST", headers: headers)
        let sessionPreflight = preflight(allow: "OPTIONS, DELETE", headers: headers)
        router.add(.post, endpoint, bodyLimit: SessionDescription.maximumSize, .async { request in await post(request) })
        router.add(.options, endpoint, .immediate { _ in endpointPreflight })
        router.add(.delete, session, .async { request in await delete(request) })
        router.add(.options, session, .immediate { _ in sessionPreflight })
    }

    /// A CORS preflight's answer: the methods `allow`ed, `Accept-Post: application/sdp`, and the request `headers` a
    /// page may send (`Authorization` only where the route reads a bearer token).
    static func preflight(allow: String, headers: String = "Authorization, Content-Type") -> HTTPResponse {
        HTTPResponse(status: .noContent, headers: [
            "Allow": allow, "Accept-Post": "application/sdp", "Access-Control-Allow-Origin": "*",
            "Access-Control-Allow-Methods": allow, "Access-Control-Allow-Headers": headers,
            "Access-Control-Expose-Headers": "Location",
        ])
    }
}
