import HTTP
import HTTPServer
import Locking
import Testing
import WebRTCServer

/// The show WHIP routes' answers, called as the HTTP server calls them, on an in-process server's port: the
/// admission's refusal answered as it is, an admitted publish's offer refused after all reported as abandoned, the
/// Location under the show's path, DELETE.
@Suite struct WHIPShowRoutesTests {
    static let path = "/v1/streams/show:mugs/whip"

    static func request(_ method: HTTPMethod, _ target: String, token: String?,
                        contentType: String? = "application/sdp", body: String = "",
                        parameters: HTTPRouteParameters) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let token { headers.add("Authorization", "Bearer " + token) }
        if let contentType { headers.add("Content-Type", contentType) }
        return HTTPRequest(head: HTTPRequestHead(method: method, target: target, headers: headers),
                           target: HTTPRequestTarget(target)!, parameters: parameters, body: Array(body.utf8))
    }

    @Test(.timeLimit(.minutes(1))) func refusesAdmitsAndDeletes() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 1))
        let seen = Locked<[String]>([])
        let routes = WHIPShowRoutes(server: server, admit: { stream, tile, bearer in
            seen.withLock { $0.append("admit \(stream) \(tile ?? "-")") }
            switch bearer {
            case nil: return .refuse(status: 401, reason: "send the host's access token")
            case "viewer-token-123": return .refuse(status: 403, reason: "only a host may publish")
            case "table-full": return .refuse(status: 503, reason: "too many WHIP sessions: try again later")
            default: return .admit(streamTag: "tag\(seen.withLock { $0.count })")
            }
        }, abandoned: { stream, tag in
            seen.withLock { $0.append("abandoned \(stream) \(tag)") }
        }, created: { stream, tag, _ in
            seen.withLock { $0.append("created \(stream) \(tag)") }
        })
        let show: HTTPRouteParameters = ["name": "show:mugs"]
        let offer = WebRTCServerPeerTests.offer

        let anonymous = await routes.post(Self.request(.post, Self.path + "?tile=camera", token: nil, body: offer,
                                                       parameters: show))
        #expect(anonymous.status.code == 401 && anonymous.headers["WWW-Authenticate"] == "Bearer")
        let viewer = await routes.post(Self.request(.post, Self.path + "?tile=camera", token: "viewer-token-123",
                                                    body: offer, parameters: show))
        #expect(viewer.status.code == 403 && viewer.headers["WWW-Authenticate"] == nil)
        #expect(!WHIPIngestRoutesTests.text(viewer).contains("viewer-token"))
        // The admission's own 503 (its table of show sessions full) says when to try again, as a full port does.
        let busy = await routes.post(Self.request(.post, Self.path + "?tile=camera", token: "table-full", body: offer,
                                                  parameters: show))
        #expect(busy.status.code == 503 && busy.headers["Retry-After"] == "5")
        let notSDP = await routes.post(Self.request(.post, Self.path, token: "host", contentType: "text/plain",
                                                    body: offer, parameters: show))
        #expect(notSDP.status.code == 415)

        let created = await routes.post(Self.request(.post, Self.path + "?tile=screen", token: "host", body: offer,
                                                     parameters: show))
        #expect(created.status.code == 201, "\(WHIPIngestRoutesTests.text(created))")
        let location = try #require(created.headers["Location"])
        #expect(location.hasPrefix(Self.path + "/") && location.count == Self.path.count + 33, "\(location)")
        let full = await routes.post(Self.request(.post, Self.path + "?tile=camera", token: "host", body: offer,
                                                  parameters: show))
        #expect(full.status.code == 503 && full.headers["Retry-After"] == "5")
        #expect(seen.withLock { $0 } == [
            "admit show:mugs camera", "admit show:mugs camera", "admit show:mugs camera", "admit show:mugs -",
            "abandoned show:mugs tag4", "admit show:mugs screen", "created show:mugs tag6", "admit show:mugs camera",
            "abandoned show:mugs tag8",
        ])

        let session: HTTPRouteParameters = ["name": "show:mugs", "id": String(location.split(separator: "/").last!)]
        let deleted = await routes.delete(Self.request(.delete, location, token: nil, parameters: session))
        #expect(deleted.status.code == 200)
        let again = await routes.delete(Self.request(.delete, location, token: nil, parameters: session))
        #expect(again.status.code == 404)
        let otherShow = await routes.post(Self.request(.post, "/v1/streams/show:cups/whip", token: "host",
                                                       body: offer, parameters: ["name": "show:cups"]))
        let elsewhere = try #require(otherShow.headers["Location"])
        let wrongShow = await routes.delete(Self.request(.delete, elsewhere, token: nil, parameters: [
            "name": "show:mugs", "id": String(elsewhere.split(separator: "/").last!),
        ]))
        #expect(wrongShow.status.code == 404, "a session is deleted under its own show only")
        await server.stop()
    }
}
