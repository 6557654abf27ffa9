import Foundation
import Identity
import IngestServer
import LiveProtocol
import LiveShows
import Locking
import ShowServer
import SQLiteShowStore
import TestSupport
import Testing

/// The driver with the real SQLite store, through connections that record what they are sent.
@Suite(.startsPeers) struct ShowServerTests {
    static let secret = try! TokenSecret(Array("a test secret of at least 32 bytes!!".utf8))

    static func token(_ user: String, name: String? = nil, expiresIn: Int64 = 3600) -> String {
        AccessToken(subject: user, name: name, expiresAt: Int64(Date().timeIntervalSince1970) + expiresIn)
            .signed(with: secret)
    }

    static func server(directory: String, cuts: Locked<[Set<UInt64>]>? = nil,
                       mediaTokenLifetime: Duration = .seconds(600),
                       onEvent: @escaping @Sendable (ShowServerEvent) -> Void = { _ in }) async throws -> ShowServer {
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}"], "users": "viewer",
                          "visitors": "read_only", "reactions": true}]}
            """.utf8))
        let server = try ShowServer(configuration: .init(
            catalog: catalog, secret: secret,
            makeStore: { () throws(StoreError) -> any ShowStore in try SQLiteShowStore(directory: directory) },
            onEvent: onEvent, mediaTokenLifetime: mediaTokenLifetime))
        try await server.start(ingestURL: "rtmp://127.0.0.1:1935/live")
        if let cuts { server.setPublisherDisconnector { ids in cuts.withLock { $0.append(ids) } } }
        return server
    }

    /// A connection of `user` to show:mugs that has joined (request id 1).
    static func joined(_ server: ShowServer, _ user: String) -> (RecordingConnection, SessionID) {
        let connection = RecordingConnection()
        let session = server.connected(connection, streamName: "show:mugs", token: token(user))
        send(server, session, 1, .join(since: nil))
        _ = connection.reply(1)
        return (connection, session)
    }

    static func send(_ server: ShowServer, _ session: SessionID, _ id: Int64, _ request: Request) {
        server.received(LiveCodec.encode(ClientRequest(id: id, request)), from: session)
    }

    @Test func chatGoesThroughTheStoreToEveryone() async throws {
        let directory = try TemporaryDirectory("show-server")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let bob = RecordingConnection()
        let eve = RecordingConnection()
        let bobSession = server.connected(bob, streamName: "show:mugs", token: Self.token("bob", name: "Bob"))
        let eveSession = server.connected(eve, streamName: "show:mugs", token: nil)
        Self.send(server, bobSession, 1, .join(since: nil))
        Self.send(server, eveSession, 1, .join(since: nil))
        guard case .success(.welcome(let welcome))? = bob.reply(1) else { Issue.record("no welcome"); return }
        #expect(welcome.you == SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: true))
        guard case .success(.welcome(let visitor))? = eve.reply(1) else { Issue.record("no welcome"); return }
        #expect(visitor.you.user == visitor.visitor?.id && visitor.you.user?.hasPrefix("visitor:") == true
                && visitor.you.role == .readOnly && visitor.you.name.hasPrefix("visitor-"))
        Self.send(server, bobSession, 2, .send(text: "Hello!"))
        guard case .success(.message(let message))? = bob.reply(2) else { Issue.record("no ack"); return }
        #expect(message.text == "Hello!" && message.user == "bob" && message.name == "Bob")
        #expect(eve.wait { $0.events.contains(.message(message)) })
        Self.send(server, eveSession, 2, .send(text: "me too"))
        guard case .failure(let error)? = eve.reply(2) else { Issue.record("a visitor wrote"); return }
        #expect(error.code == .readOnly)
        // Acknowledged means committed: the file already holds it.
        let stored = try Subprocess.run("sqlite3", [directory.file("shows.sqlite3"), "SELECT text FROM messages"])
        #expect(stored.stdout == "Hello!\n")
    }

    @Test func refusedJoinsCloseWithTheirCode() async throws {
        let directory = try TemporaryDirectory("show-server")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let cases: [(String, String?, ErrorCode, UInt16)] = [
            ("show:mugs", Self.token("bob", expiresIn: -3600), .unauthorized, ShowCloseCode.unauthorized),
            ("show:mugs", "not.a.token", .unauthorized, ShowCloseCode.unauthorized),
            ("show:mugs", AccessToken(subject: "bob", expiresAt: 4_000_000_000)
                .signed(with: try TokenSecret(Array("another secret, 32 bytes or more!".utf8))),
             .unauthorized, ShowCloseCode.unauthorized),
            ("room:mugs", Self.token("bob"), .notFound, ShowCloseCode.notFound),
            // Issue 34 item 16: what cannot be a stream name is invalid, not unknown.
            ("show:" + String(repeating: "m", count: 124), Self.token("bob"), .invalid, ShowCloseCode.invalid),
            ("show:mugs/x", Self.token("bob"), .invalid, ShowCloseCode.invalid),
        ]
        for (name, token, code, closeCode) in cases {
            let connection = RecordingConnection()
            let session = server.connected(connection, streamName: name, token: token)
            Self.send(server, session, 1, .join(since: nil))
            guard case .failure(let error)? = connection.reply(1) else { Issue.record("joined \(name)"); continue }
            #expect(error.code == code)
            #expect(connection.wait { $0.closeCode == closeCode })
        }
    }

    /// Issue 34 item 16: every close of a show's connection says why in its reason, as a refused join's does:
    /// kicked (4409) "kicked", banned (4403) "banned", left (1000) "left", refused (4401) "unauthorized".
    @Test func everyCloseCarriesItsReason() async throws {
        let directory = try TemporaryDirectory("show-server")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let (_, annSession) = Self.joined(server, "ann")
        let (bob, _) = Self.joined(server, "bob")
        let (eve, _) = Self.joined(server, "eve")
        let (max, maxSession) = Self.joined(server, "max")
        Self.send(server, annSession, 2, .kick(user: "bob"))
        Self.send(server, annSession, 3, .ban(user: "eve"))
        Self.send(server, maxSession, 2, .leave)
        let refused = RecordingConnection()
        let refusedSession = server.connected(refused, streamName: "show:mugs", token: "not.a.token")
        Self.send(server, refusedSession, 1, .join(since: nil))
        for (connection, code, reason) in [(bob, ShowCloseCode.kicked, "kicked"), (eve, ShowCloseCode.banned, "banned"),
                                           (max, ShowCloseCode.normal, "left"),
                                           (refused, ShowCloseCode.unauthorized, "unauthorized")] {
            #expect(connection.wait { $0.closeCode != nil }, "\(reason): not closed")
            #expect(connection.closeCode == code && connection.closeReason == reason,
                    "\(reason): closed \(connection.closeCode ?? 0) \"\(connection.closeReason ?? "")\"")
        }
    }

    /// Issue 34 item 5: visitors' names come from a random source, not the session counter (a new server's first
    /// visitors were named alike every run): the first four visitors of two new servers are named differently.
    @Test func visitorNamesDifferFromOneServerToTheNext() async throws {
        var runs: [[String]] = []
        for _ in 0..<2 {
            let directory = try TemporaryDirectory("show-server")
            let server = try await Self.server(directory: directory.path)
            defer { server.stop() }
            var names: [String] = []
            for _ in 0..<4 {
                let visitor = RecordingConnection()
                let session = server.connected(visitor, streamName: "show:mugs", token: nil)
                Self.send(server, session, 1, .join(since: nil))
                guard case .success(.welcome(let welcome))? = visitor.reply(1) else {
                    Issue.record("no welcome")
                    return
                }
                names.append(welcome.you.name)
            }
            runs.append(names)
        }
        #expect(runs.joined().allSatisfy { $0.hasPrefix("visitor-") && $0.count == 12 }, "\(runs)")
        #expect(runs[0] != runs[1], "\(runs)")
    }

    @Test func malformedFloodsAreDropped() async throws {
        let directory = try TemporaryDirectory("show-server")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let connection = RecordingConnection()
        let session = server.connected(connection, streamName: "show:mugs", token: nil)
        server.received(Array("{".utf8), from: session)
        #expect(connection.wait { !$0.messages.isEmpty })
        guard case .reply(nil, .failure(let error)) = connection.messages[0] else { Issue.record("no error"); return }
        #expect(error.code == .invalid)
        Self.send(server, session, 5, .send(text: "before joining"))
        #expect(connection.reply(5) == .failure(ShowError(.invalid, "join first")))
        for _ in 0..<30 { server.received(Array("[]".utf8), from: session) }
        #expect(connection.wait { $0.closeCode == ShowCloseCode.policyViolation })
    }

    /// OBS: the key from `ingest` passes the ingest's check, its publish makes the show live, and renewing it
    /// cuts that publisher; everything survives a restart of the server.
    @Test func ingestKeysGoLiveAndRenewCuts() async throws {
        let directory = try TemporaryDirectory("show-server")
        let cuts = Locked<[Set<UInt64>]>([])
        var server = try await Self.server(directory: directory.path, cuts: cuts)
        let (ann, annSession) = Self.joined(server, "ann")
        let (bob, bobSession) = Self.joined(server, "bob")
        Self.send(server, annSession, 2, .ingest(renew: false))
        guard case .success(.ingest(let endpoint))? = ann.reply(2) else { Issue.record("no key"); return }
        let gate = server.publishGate()
        #expect(gate.authorize("live", "someone-else's-key") == .pass)
        guard case .allow(let admission) = gate.authorize("live", endpoint.key) else {
            Issue.record("key refused")
            return
        }
        gate.started(admission)
        #expect(bob.wait { $0.events.contains(.state(.live)) })
        #expect(bob.wait { $0.events.contains(.tiles([.obs], main: .obs)) })
        Self.send(server, annSession, 3, .ingest(renew: true))
        guard case .success(.ingest(let renewed))? = ann.reply(3) else { Issue.record("no renewed key"); return }
        #expect(cuts.withLock { $0 } == [[admission]])
        gate.stopped(admission)
        #expect(bob.wait { $0.events.contains(.state(.idle)) })
        guard case .refuse = gate.authorize("live", endpoint.key) else {
            Issue.record("old key allowed")
            return
        }
        Self.send(server, bobSession, 2, .send(text: "kept"))
        _ = bob.reply(2)
        server.stop()

        server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        guard case .allow = server.authorizePublish(streamKey: renewed.key) else {
            Issue.record("renewed key forgotten")
            return
        }
        let again = RecordingConnection()
        let session = server.connected(again, streamName: "show:mugs", token: Self.token("ann"))
        Self.send(server, session, 1, .join(since: nil))
        guard case .success(.welcome(let welcome))? = again.reply(1) else { Issue.record("no welcome"); return }
        #expect(welcome.chat.messages.map(\.text) == ["kept"])
        Self.send(server, session, 2, .ingest(renew: false))
        #expect(again.reply(2) == .success(.ingest(renewed)))
    }
}

extension ShowServerTests {
    /// Chat older than the retention is removed when the server starts (and said once in the log); what is newer
    /// is what a joining watcher gets.
    @Test func oldChatIsForgottenWhenTheServerStarts() async throws {
        let directory = try TemporaryDirectory("show-server")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day: Int64 = 86_400_000
        do {
            let store = try SQLiteShowStore(directory: directory.path)
            _ = try store.commit([40, 31, 29, 1].map { age in
                ("show:mugs", .message(MessageDraft(user: "bob", name: "Bob", role: .viewer,
                                                    text: "\(age) days ago", time: now - age * day)))
            })
        }
        let events = Locked<[ShowServerEvent]>([])
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "show:{id}", "users": "viewer"}]}
            """.utf8))
        let server = try ShowServer(configuration: .init(
            catalog: catalog, secret: Self.secret,
            makeStore: { () throws(StoreError) -> any ShowStore in try SQLiteShowStore(directory: directory.path) },
            onEvent: { event in events.withLock { $0.append(event) } }, chatRetention: .seconds(30 * 86_400)))
        try await server.start(ingestURL: nil)
        defer { server.stop() }
        let deadline = ContinuousClock.now + .seconds(10)
        while events.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(events.withLock { $0 } == [.chatPruned(messages: 2, olderThanDays: 30)])
        #expect(events.withLock { $0.first?.description } == "shows: 2 chat messages older than 30 days removed")
        let connection = RecordingConnection()
        let session = server.connected(connection, streamName: "show:mugs", token: Self.token("eve"))
        Self.send(server, session, 1, .join(since: nil))
        guard case .success(.welcome(let welcome))? = connection.reply(1) else {
            Issue.record("no welcome")
            return
        }
        #expect(welcome.chat.messages.map(\.text) == ["29 days ago", "1 days ago"])
    }
}

extension ShowServerTests {
    /// What webhooks tell a backend comes as events: live once, the picture, a kick and a ban once committed, the
    /// picture's end and the show's end with how long it was live and its most viewers.
    @Test func aShowsLifeComesAsEventsOnceEach() async throws {
        let directory = try TemporaryDirectory("show-server")
        let events = Locked<[ShowServerEvent]>([])
        let server = try await Self.server(directory: directory.path) { event in events.withLock { $0.append(event) } }
        defer { server.stop() }
        let (ann, annSession) = Self.joined(server, "ann")
        let (bob, _) = Self.joined(server, "bob")
        Self.send(server, annSession, 2, .ingest(renew: false))
        let gate = server.publishGate()
        let reply = ann.reply(2)
        guard case .success(.ingest(let endpoint))? = reply, case .allow(let admission) = gate.authorize("live", endpoint.key)
        else {
            Issue.record("no key: \(String(describing: reply))")
            return
        }
        gate.started(admission)
        #expect(bob.wait { $0.events.contains(.tiles([.obs], main: .obs)) })
        Self.send(server, annSession, 3, .kick(user: "bob"))
        Self.send(server, annSession, 4, .ban(user: "eve"))
        _ = ann.reply(4)
        gate.stopped(admission)
        let deadline = ContinuousClock.now + .seconds(10)
        // The show's end comes first, then its picture's, from one broadcast of each.
        while !events.withLock({ $0.contains(.tileEnded(show: "show:mugs", tile: "obs")) }),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let seen = events.withLock { $0 }
        #expect(Array(seen.prefix(2)) == [.showLive(show: "show:mugs"), .tileAdded(show: "show:mugs", tile: "obs")],
                "\(seen)")
        #expect(seen.contains(.userKicked(show: "show:mugs", user: "bob")), "\(seen)")
        #expect(seen.contains(.userBanned(show: "show:mugs", user: "eve")), "\(seen)")
        #expect(seen.contains(.tileEnded(show: "show:mugs", tile: "obs")), "\(seen)")
        guard case .showEnded(let show, let seconds, let peak)? = seen.first(where: {
            if case .showEnded = $0 { true } else { false }
        }) else {
            Issue.record("no end: \(seen)")
            return
        }
        #expect(show == "show:mugs" && seconds >= 0 && seconds < 10 && peak == 1, "\(seen)")
        #expect(seen.filter { if case .showLive = $0 { true } else { false } }.count == 1)
    }
}

extension ShowServerTests {
    /// A WHIP publish is admitted by the declarations in force: after the operator reloads the shows file, a show
    /// only the new file declares takes its host's WHIP picture, and one the old file alone declared is refused.
    @Test func whipAdmissionsFollowAReloadedShowsFile() async throws {
        let directory = try TemporaryDirectory("show-server")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let ann = Self.token("ann")
        guard case .failure(let before) = await server.authorizeWHIP(stream: "club:tv", tile: "camera",
                                                                      bearer: ann) else {
            Issue.record("club:tv is not declared yet")
            return
        }
        #expect(before.status == 404, "\(before)")
        server.replaceCatalog(try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "club:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "none"}]}
            """.utf8)))
        let after = await server.authorizeWHIP(stream: "club:tv", tile: "camera", bearer: ann)
        #expect((try? after.get()) != nil, "the reloaded file declares club:tv: \(after)")
        guard case .failure(let gone) = await server.authorizeWHIP(stream: "show:mugs", tile: "camera",
                                                                    bearer: ann) else {
            Issue.record("show:mugs is no longer declared")
            return
        }
        #expect(gone.status == 404, "\(gone)")
    }
}
