import Testing
import TestSupport
import Transport
import WebRTC
import WHIP

/// A whole WHIP publish against aiortc's endpoint, and each way an endpoint can refuse.
@Suite(.serialized, .startsPeers)
struct WHIPSessionTests {
    @Test(.timeLimit(.minutes(1)))
    func publishesAndDeletesTheSession() async throws {
        let endpoint = try AiortcEndpoint.start()
        let source = try TestMediaSource()
        let loop = try EventLoop(name: "whip-test")
        defer { loop.shutdown() }
        let session = try await WHIPSession.start(
            endpoint: try WHIPURL(parsing: endpoint.url.absoluteString), token: endpoint.token,
            configuration: .init(bindHost: "127.0.0.1", profileLevelID: source.profileLevelID,
                                 videoBitrateKbps: 1000),
            transport: URLSessionWHIPTransport(), loop: loop)
        #expect(session.resource.target == "/whip/session")
        async let following: Void = source.follow(session.publisher.events)
        try await source.run(seconds: 2, to: session.publisher)
        await session.close()
        await following
        let results = try endpoint.results()
        #expect(results["deleted"] as? Bool == true)
        #expect((results["frames"] as? Int ?? 0) >= 40)
        #expect(results["refused"] as? Int == 0)
    }

    /// 401, 404, 503 and a broken answer: the reason is named, refusals are final and a busy server is not, and
    /// the token appears nowhere.
    @Test(.timeLimit(.minutes(1)))
    func refusalsNameTheReasonWithoutTheToken() async throws {
        let endpoint = try AiortcEndpoint.start()
        let loop = try EventLoop(name: "whip-refusals")
        defer { loop.shutdown() }
        let base = endpoint.url.absoluteString
        let cases: [(url: String, token: String, transient: Bool, phrase: String)] = [
            (base, "wrong-token-123", false, "refused the token (401: \"bad token\")"),
            (base + "/elsewhere", endpoint.token, false, "no WHIP endpoint at"),
            (base + "/overloaded", endpoint.token, true, "failed (503: \"overloaded, try later\")"),
            (base + "/broken", endpoint.token, false, "SDP answer cannot be used"),
        ]
        for (url, token, transient, phrase) in cases {
            let whipURL = try WHIPURL(parsing: url)
            do throws(WHIPPublishError) {
                let session = try await WHIPSession.start(
                    endpoint: whipURL, token: token,
                    configuration: .init(bindHost: "127.0.0.1"), transport: URLSessionWHIPTransport(), loop: loop)
                await session.close()
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.description.contains(phrase), "\(url): \(error)")
                #expect(error.isTransient == transient, "\(url): \(error)")
                #expect(!error.description.contains(token) && !error.description.contains(endpoint.token))
            }
        }
        // The broken answer's session was created, so it was deleted again (the only DELETE: it ends the endpoint).
        let results = try endpoint.results()
        #expect(results["deleted"] as? Bool == true)
        #expect(results["refused"] as? Int == 1)
    }
}
