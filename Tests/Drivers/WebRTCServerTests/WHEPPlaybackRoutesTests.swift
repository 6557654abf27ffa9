import FLV
import HTTP
import HTTPServer
import Testing
import WebRTCServer

/// The WHEP routes' refusals, called as the HTTP server calls them, on an in-process server's port (playback
/// itself, with a publisher and players, is `ServeWHEPTests`').
@Suite struct WHEPPlaybackRoutesTests {
    static let tag = String(repeating: "ab", count: 16)

    @Test(.timeLimit(.minutes(1))) func refusesWhatItCannotPlay() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0))
        let misses = MissLimiter(burst: 2, perSecond: 1)
        let routes = WHEPPlaybackRoutes(server: server, misses: misses)
        let endpoint: HTTPRouteParameters = ["app": "live", "tag": Self.tag]
        let offer = WebRTCServerPeerTests.offer
        let path = "/whep/live/" + Self.tag

        let notSDP = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, contentType: "text/plain",
                                                                      body: offer, parameters: endpoint))
        #expect(notSDP.status.code == 415)
        // Nothing publishes there: 404, counted as a miss; past the limiter's burst, 429 before anything is looked up.
        let missing = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: offer,
                                                                       parameters: endpoint))
        #expect(missing.status.code == 404, "\(WHIPIngestRoutesTests.text(missing))")
        let badTag = await routes.post(WHIPIngestRoutesTests.request(.post, "/whep/live/a%20b", key: nil, body: offer,
                                                                      parameters: ["app": "live", "tag": "a b"]))
        #expect(badTag.status.code == 404)
        let limited = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: offer,
                                                                       parameters: endpoint))
        #expect(limited.status.code == 429 && limited.headers["Retry-After"] != nil,
                "\(WHIPIngestRoutesTests.text(limited))")

        // A WHIP session's id does not end it through WHEP's DELETE.
        let whip = WHIPIngestRoutes(server: server) { _ in true }
        let created = await whip.post(WHIPIngestRoutesTests.request(.post, "/whip/live", body: offer,
                                                                    parameters: ["app": "live"]))
        let location = try #require(created.headers["Location"])
        let id = String(location.dropFirst("/whip/live/session/".count))
        let deleted = await routes.delete(WHIPIngestRoutesTests.request(
            .delete, path + "/session/" + id, key: nil, parameters: ["app": "live", "tag": Self.tag, "id": id]))
        #expect(deleted.status.code == 404)
        #expect(await server.statistics().sessions.count == 1)
        await server.stop()
    }

    /// A live RTMP publish (fed in-process) is played: 201 with a sendonly answer; past the player bound 503; an
    /// offer without H.264 406; once a frame with a composition offset (B-frames) came, 406 naming them.
    @Test(.timeLimit(.minutes(1))) func playsWithinItsBounds() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumPlayers: 1))
        let routes = WHEPPlaybackRoutes(server: server)
        let endpoint: HTTPRouteParameters = ["app": "live", "tag": Self.tag]
        let path = "/whep/live/" + Self.tag
        let offer = WebRTCServerPeerTests.offer.replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
        server.startRTMP(app: "live", streamTag: Self.tag)
        let header = FLVTag(video: .sequenceHeader(try AVCDecoderConfigurationRecord(
            sps: [0x67, 0x42, 0xc0, 0x1e, 0xda], pps: [0x68, 0xce, 0x3c, 0x80])), timestamp: 0)
        server.forwardRTMP(app: "live", streamTag: Self.tag, header)

        let vp8 = offer.replacingOccurrences(of: "H264/90000", with: "VP8/90000")
        let noH264 = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: vp8,
                                                                      parameters: endpoint))
        #expect(noH264.status.code == 406, "\(WHIPIngestRoutesTests.text(noH264))")
        let created = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: offer,
                                                                       parameters: endpoint))
        #expect(created.status.code == 201, "\(WHIPIngestRoutesTests.text(created))")
        let answer = WHIPIngestRoutesTests.text(created)
        #expect(answer.contains("a=sendonly") && answer.contains("profile-level-id=42e01f"), "\(answer)")
        #expect(created.headers["Location"]?.hasPrefix(path + "/session/") == true)
        let full = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: offer,
                                                                    parameters: endpoint))
        #expect(full.status.code == 503 && full.headers["Retry-After"] == "5", "\(WHIPIngestRoutesTests.text(full))")

        let bframe = FLVTag(video: .frame([0, 0, 0, 2, 0x41, 0x9a], isKeyFrame: false, compositionTime: 66),
                            timestamp: 33)
        server.forwardRTMP(app: "live", streamTag: Self.tag, bframe)
        let refused = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: offer,
                                                                       parameters: endpoint))
        #expect(refused.status.code == 406 && WHIPIngestRoutesTests.text(refused).contains("B-frames"),
                "\(WHIPIngestRoutesTests.text(refused))")
        #expect(await server.statistics().sessions.isEmpty, "the B-frames ended the player")
        server.stopRTMP(app: "live", streamTag: Self.tag)
        let gone = await routes.post(WHIPIngestRoutesTests.request(.post, path, key: nil, body: offer,
                                                                    parameters: endpoint))
        #expect(gone.status.code == 404)
        await server.stop()
    }
}
