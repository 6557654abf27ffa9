import Foundation
import Identity
import LiveProtocol
import LiveShows
import ShowServer
import SQLiteShowStore
import TestSupport
import Testing

/// Issue 33's status API, from the driver: what a show card reads without joining, as the caller's token may see it.
@Suite(.startsPeers) struct StreamStatusTests {
    static func server(directory: String) async throws -> ShowServer {
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer",
                          "title": "The {id} show", "description": "Every Friday."},
                         {"pattern": "club:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "none"}]}
            """.utf8))
        let server = try ShowServer(configuration: .init(
            catalog: catalog, secret: ShowServerTests.secret,
            makeStore: { () throws(StoreError) -> any ShowStore in try SQLiteShowStore(directory: directory) }))
        try await server.start(ingestURL: "rtmp://127.0.0.1:1935/live")
        return server
    }

    /// Makes `stream` live with its OBS key, as the ingest would; returns when a watcher saw it live.
    static func goLive(_ server: ShowServer, _ stream: String) throws {
        let ann = RecordingConnection()
        let session = server.connected(ann, streamName: stream, token: ShowServerTests.token("ann"))
        ShowServerTests.send(server, session, 1, .join(since: nil))
        _ = ann.reply(1)
        ShowServerTests.send(server, session, 2, .ingest(renew: false))
        guard case .success(.ingest(let endpoint))? = ann.reply(2) else { throw StatusTestError("no OBS key") }
        let gate = server.publishGate()
        guard case .allow(let admission) = gate.authorize("live", endpoint.key) else {
            throw StatusTestError("the key was refused")
        }
        gate.started(admission)
        guard ann.wait(until: { $0.events.contains(.state(.live)) }) else { throw StatusTestError("not live") }
    }

    struct StatusTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func aShowCardReadsStateCountPicturesAndTitle() async throws {
        let directory = try TemporaryDirectory("status")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        // Not loaded yet: the status loads it; nothing published.
        guard case .success(let idle) = await server.status(of: "show:mugs", token: nil) else {
            Issue.record("no status for an idle show")
            return
        }
        #expect(idle == StreamStatus(name: "show:mugs", title: "The mugs show", description: "Every Friday.",
                                     state: .idle, viewers: 0, tiles: [], main: nil, startedAt: nil))
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        try Self.goLive(server, "show:mugs")
        let (_, _) = ShowServerTests.joined(server, "bob")
        guard case .success(let live) = await server.status(of: "show:mugs", token: ShowServerTests.token("bob")) else {
            Issue.record("no status for a live show")
            return
        }
        #expect(live.state == .live && live.tiles == [.obs] && live.main == .obs && live.viewers == 1)
        #expect((live.startedAt ?? 0) >= before - 1000, "startedAt \(String(describing: live.startedAt))")
        let text = String(decoding: LiveCodec.encode(live), as: UTF8.self)
        #expect(text.hasPrefix(#"{"name":"show:mugs","title":"The mugs show","description":"Every Friday.","#
                               + #""state":"live","viewers":1,"tiles":["obs"],"main":"obs","startedAt":"#), "\(text)")
        #expect(text.hasSuffix(#","watch":"/watch/show:mugs","poster":"/v1/streams/show:mugs/poster.jpg"}"#),
                "\(text)")
    }

    @Test func refusalsSayWhyWithTheirStatus() async throws {
        let directory = try TemporaryDirectory("status")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let cases: [(String, String?, Int, ErrorCode)] = [
            ("club:tv", nil, 401, .unauthorized),                              // visitors: none
            ("show:mugs", "not.a.token", 401, .unauthorized),
            ("room:mugs", nil, 404, .notFound),
            ("show:mugs/x", nil, 400, .invalid),
        ]
        for (name, token, status, code) in cases {
            guard case .failure(let refusal) = await server.status(of: name, token: token) else {
                Issue.record("\(name) answered")
                continue
            }
            #expect(refusal.status == status && refusal.error.code == code, "\(name): \(refusal)")
        }
        guard case .success = await server.status(of: "club:tv", token: ShowServerTests.token("bob")) else {
            Issue.record("a signed-in viewer of club:tv was refused")
            return
        }
        // A banned user cannot read the card either.
        let (_, annSession) = ShowServerTests.joined(server, "ann")
        ShowServerTests.send(server, annSession, 2, .ban(user: "eve"))
        try await eventually("eve's ban to apply to her card", within: .seconds(5)) {
            if case .failure(let refusal) = await server.status(of: "show:mugs", token: ShowServerTests.token("eve")) {
                return refusal.status == 403
            }
            return false
        }
    }

    @Test func theLiveListHoldsTheMatchingLiveStreamsTheCallerMayWatch() async throws {
        let directory = try TemporaryDirectory("status")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        try Self.goLive(server, "show:mugs")
        try Self.goLive(server, "show:cups")
        try Self.goLive(server, "club:tv")
        _ = await server.status(of: "show:plates", token: nil)           // loaded, not live
        guard case .success(let visitor) = await server.liveStreams(matching: "*", token: nil),
              case .success(let bob) = await server.liveStreams(matching: "*", token: ShowServerTests.token("bob")),
              case .success(let shows) = await server.liveStreams(matching: "show:*", token: nil),
              case .success(let cups) = await server.liveStreams(matching: "*:cu*s", token: nil) else {
            Issue.record("a list was refused")
            return
        }
        #expect(visitor.map(\.name) == ["show:cups", "show:mugs"], "a visitor does not see club:tv")
        #expect(bob.map(\.name) == ["club:tv", "show:cups", "show:mugs"])
        #expect(shows.map(\.name) == ["show:cups", "show:mugs"] && cups.map(\.name) == ["show:cups"])
    }

    /// Characters no stream name has, or more than 128: 400 with what a pattern is, and the pattern not echoed.
    @Test(arguments: ["", "show:<b>", "show: *", "show:*/x", "show:m%C3%BCgs", "sh\u{f6}w:*",
                      String(repeating: "*", count: 129)])
    func aPatternNoNameCouldMatchIsInvalid(pattern: String) async throws {
        let directory = try TemporaryDirectory("status")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        guard case .failure(let refusal) = await server.liveStreams(matching: pattern, token: nil) else {
            Issue.record("\(pattern) was answered")
            return
        }
        #expect(refusal.status == 400 && refusal.error.code == .invalid)
        #expect(refusal.error.reason.contains("e.g. show:*"))
        #expect(pattern.isEmpty || !refusal.error.reason.contains(pattern))
        guard case .success = await server.liveStreams(matching: String(repeating: "*", count: 128), token: nil) else {
            Issue.record("128 characters were refused")
            return
        }
    }
}
