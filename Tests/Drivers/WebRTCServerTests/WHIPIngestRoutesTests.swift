import HTTP
import HTTPServer
import Testing
import WebRTCServer

/// The WHIP routes' answers (RFC 9725), called as the HTTP server calls them, on an in-process server's port.
@Suite struct WHIPIngestRoutesTests {
    static let key = "s3cret-stream-key"

    static func request(_ method: HTTPMethod, _ path: String, key: String? = WHIPIngestRoutesTests.key,
                        contentType: String? = "application/sdp", body: String = "",
                        parameters: HTTPRouteParameters) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let key { headers.add("Authorization", "Bearer " + key) }
        if let contentType { headers.add("Content-Type", contentType) }
        return HTTPRequest(head: HTTPRequestHead(method: method, target: path, headers: headers),
                           target: HTTPRequestTarget(path)!, parameters: parameters, body: Array(body.utf8))
    }

    static func text(_ response: HTTPResponse) -> String {
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(.timeLimit(.minutes(1))) func answersRefusesAndDeletes() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 1))
        let routes = WHIPIngestRoutes(server: server) { $0 == Self.key }
        let endpoint: HTTPRouteParameters = ["app": "live"]
        let offer = WebRTCServerPeerTests.offer

        for key in [nil, "wrong-key-12345"] {
            let refused = await routes.post(Self.request(.post, "/whip/live", key: key, body: offer,
                                                         parameters: endpoint))
            #expect(refused.status.code == 401 && refused.headers["WWW-Authenticate"] == "Bearer")
            #expect(!Self.text(refused).contains("wrong-key"), "the key is never echoed: \(Self.text(refused))")
        }
        let notSDP = await routes.post(Self.request(.post, "/whip/live", contentType: "text/plain", body: offer,
                                                    parameters: endpoint))
        #expect(notSDP.status.code == 415)
        let malformed = await routes.post(Self.request(.post, "/whip/live", body: "v=0\r\nbad line\r\n",
                                                       parameters: endpoint))
        #expect(malformed.status.code == 400 && Self.text(malformed).contains("line 2"), "\(Self.text(malformed))")
        let vp8 = offer.replacingOccurrences(of: "H264/90000", with: "VP8/90000")
            .replacingOccurrences(of: "opus/48000/2", with: "PCMU/8000")
        let unsupported = await routes.post(Self.request(.post, "/whip/live", body: vp8, parameters: endpoint))
        #expect(unsupported.status.code == 406, "\(Self.text(unsupported))")
        let badApp = await routes.post(Self.request(.post, "/whip/a%20b", body: offer, parameters: ["app": "a b"]))
        #expect(badApp.status.code == 404)

        let created = await routes.post(Self.request(.post, "/whip/live", body: offer, parameters: endpoint))
        #expect(created.status.code == 201, "\(Self.text(created))")
        #expect(created.headers["Content-Type"] == "application/sdp")
        #expect(Self.text(created).hasPrefix("v=0\r\n") && Self.text(created).contains("a=ice-lite"))
        let location = try #require(created.headers["Location"])
        #expect(location.hasPrefix("/whip/live/session/") && location.count == "/whip/live/session/".count + 32)
        let id = String(location.dropFirst("/whip/live/session/".count))

        let full = await routes.post(Self.request(.post, "/whip/live", body: offer, parameters: endpoint))
        #expect(full.status.code == 503 && full.headers["Retry-After"] == "5", "\(Self.text(full))")

        let session: HTTPRouteParameters = ["app": "live", "id": id]
        let anonymous = await routes.delete(Self.request(.delete, location, key: nil, parameters: session))
        #expect(anonymous.status.code == 401)
        let deleted = await routes.delete(Self.request(.delete, location, parameters: session))
        #expect(deleted.status.code == 200)
        let again = await routes.delete(Self.request(.delete, location, parameters: session))
        #expect(again.status.code == 404)
        #expect(await server.statistics().sessions.isEmpty)
        await server.stop()
    }
}
