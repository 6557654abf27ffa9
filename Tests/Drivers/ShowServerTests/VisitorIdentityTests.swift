import Foundation
import Identity
import LiveProtocol
import LiveShows
import ShowServer
import SQLiteShowStore
import TestSupport
import Testing

/// Issue 34 items 5 and 6: a visitor is one person across reconnects. Its welcome gives it an id and a token; it
/// brings the token back and slow mode, timeouts, kicks, bans and rate limits follow it, as they follow a user; one
/// that throws the token away gets a new id only a few times per address.
@Suite(.startsPeers) struct VisitorIdentityTests {
    static let secret = ShowServerTests.secret

    static func server(directory: String) async throws -> ShowServer {
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer",
                          "reactions": true}]}
            """.utf8))
        let server = try ShowServer(configuration: .init(
            catalog: catalog, secret: secret,
            makeStore: { () throws(StoreError) -> any ShowStore in try SQLiteShowStore(directory: directory) }))
        try await server.start(ingestURL: "rtmp://127.0.0.1:1935/live")
        return server
    }

    /// A visitor's join from `address` with a visitor token (or none) and a chosen name (or none).
    static func visit(_ server: ShowServer, from address: String = "198.51.100.7", token: String? = nil,
                      name: String? = nil) -> (RecordingConnection, SessionID, Result<Reply, ShowError>?) {
        let connection = RecordingConnection()
        let session = server.connected(connection, streamName: "show:mugs", token: nil, address: address)
        ShowServerTests.send(server, session, 1, .join(since: nil, visitor: token, name: name))
        return (connection, session, connection.reply(1))
    }

    static func welcome(_ result: Result<Reply, ShowError>?) -> Welcome? {
        if case .success(.welcome(let welcome))? = result { welcome } else { nil }
    }

    @Test func aVisitorThatBringsItsTokenBackIsTheSameVisitorAndSlowModeFollowsIt() async throws {
        let directory = try TemporaryDirectory("visitors")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let (_, annSession) = ShowServerTests.joined(server, "ann")
        ShowServerTests.send(server, annSession, 2, .setSlow(seconds: 30))
        let (first, firstSession, firstReply) = Self.visit(server)
        guard let welcome = Self.welcome(firstReply), let grant = welcome.visitor else {
            Issue.record("a visitor's welcome has no visitor id: \(String(describing: firstReply))")
            return
        }
        #expect(grant.id.hasPrefix("visitor:") && grant.id.count == 30 && grant.token.hasPrefix("v1."))
        #expect(welcome.you.user == grant.id && welcome.you.name.hasPrefix("visitor-"))
        ShowServerTests.send(server, firstSession, 2, .send(text: "first"))
        guard case .success(.message(let message))? = first.reply(2) else { Issue.record("no ack"); return }
        #expect(message.user == grant.id, "the message names the visitor, so a mod can act on it")
        // Five reconnects with the token: the same id and name each time, and slow mode refuses each message.
        for attempt in 0..<5 {
            server.disconnected(firstSession)
            let (again, session, reply) = Self.visit(server, token: grant.token)
            guard let rejoined = Self.welcome(reply) else { Issue.record("rejoin \(attempt) refused"); return }
            #expect(rejoined.visitor?.id == grant.id && rejoined.you.name == welcome.you.name)
            ShowServerTests.send(server, session, 2, .send(text: "again \(attempt)"))
            guard case .failure(let error)? = again.reply(2) else {
                Issue.record("reconnect \(attempt) escaped slow mode")
                return
            }
            #expect(error.code == .slow && (error.retryAfter ?? 0) > 20, "\(error)")
            server.disconnected(session)
        }
    }

    @Test func aVisitorThatThrowsItsTokenAwayBecomesItsAddressAfterThreeNewIds() async throws {
        let directory = try TemporaryDirectory("visitors")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        var ids: [String] = []
        for _ in 0..<5 {
            let (_, session, reply) = Self.visit(server, from: "203.0.113.9")
            ids.append(Self.welcome(reply)?.visitor?.id ?? "none")
            server.disconnected(session)
        }
        #expect(Set(ids.prefix(3)).count == 3, "the first three are new visitors: \(ids)")
        #expect(ids[3] == ids[4] && !ids.prefix(3).contains(ids[3]), "then one visitor for the address: \(ids)")
        // Another address still gets new ids; a forged token (another id, the old MAC) gets nobody's.
        let (_, _, other) = Self.visit(server, from: "203.0.113.10")
        #expect(Self.welcome(other)?.visitor.map { !ids.contains($0.id) } == true)
        let (_, _, real) = Self.visit(server, from: "203.0.113.11")
        guard let grant = Self.welcome(real)?.visitor else { Issue.record("no visitor"); return }
        let parts = grant.token.split(separator: ".")
        let victim = String(ids[0].dropFirst("visitor:".count))
        let forged = "v1.\(victim).\(parts[2])"
        let (_, _, forgedReply) = Self.visit(server, from: "203.0.113.11", token: forged)
        #expect(Self.welcome(forgedReply).map { $0.visitor?.id != ids[0] } == true, "a forged token passed")
    }

    @Test func aModTimesOutKicksAndBansAVisitorByItsID() async throws {
        let directory = try TemporaryDirectory("visitors")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let (_, annSession) = ShowServerTests.joined(server, "ann")
        let (visitor, session, reply) = Self.visit(server)
        guard let grant = Self.welcome(reply)?.visitor else { Issue.record("no visitor"); return }
        ShowServerTests.send(server, annSession, 2, .timeout(user: grant.id, seconds: 60))
        #expect(visitor.wait { $0.events.contains { if case .you(let you) = $0 { !you.canWrite } else { false } } })
        ShowServerTests.send(server, session, 2, .send(text: "let me"))
        guard case .failure(let timedOut)? = visitor.reply(2) else { Issue.record("a timed-out visitor wrote"); return }
        #expect(timedOut.code == .timeout)
        // The timeout follows it to its next session.
        server.disconnected(session)
        let (again, againSession, againReply) = Self.visit(server, token: grant.token)
        #expect(Self.welcome(againReply)?.you.canWrite == false)
        ShowServerTests.send(server, annSession, 3, .kick(user: grant.id))
        #expect(again.wait { $0.closeCode == ShowCloseCode.kicked }, "a kicked visitor stays")
        server.disconnected(againSession)
        let (banned, bannedSession, _) = Self.visit(server, token: grant.token)
        ShowServerTests.send(server, annSession, 4, .ban(user: grant.id))
        #expect(banned.wait { $0.closeCode == ShowCloseCode.banned }, "a banned visitor stays")
        server.disconnected(bannedSession)
        let (refused, _, refusedReply) = Self.visit(server, token: grant.token)
        guard case .failure(let error)? = refusedReply else { Issue.record("a banned visitor came back"); return }
        #expect(error.code == .banned && refused.wait { $0.closeCode == ShowCloseCode.banned })
    }

    @Test func aVisitorChoosesItsNameAndAUserCannot() async throws {
        let directory = try TemporaryDirectory("visitors")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let (chosen, session, reply) = Self.visit(server, name: "Zoë")
        #expect(Self.welcome(reply)?.you.name == "Zoë")
        ShowServerTests.send(server, session, 2, .send(text: "hi"))
        guard case .success(.message(let message))? = chosen.reply(2) else { Issue.record("no ack"); return }
        #expect(message.name == "Zoë" && message.user?.hasPrefix("visitor:") == true)
        for name in ["", "\u{200B}", "\u{202E}nnA", "a\u{1B}[2J", String(repeating: "n", count: 65)] {
            let (refused, _, refusedReply) = Self.visit(server, from: "198.51.100.\(name.count)", name: name)
            guard case .failure(let error)? = refusedReply else {
                Issue.record("took name \(name.debugDescription)")
                continue
            }
            #expect(error.code == .invalid && refused.wait { $0.closeCode == ShowCloseCode.invalid })
        }
        let user = RecordingConnection()
        let userSession = server.connected(user, streamName: "show:mugs", token: ShowServerTests.token("bob"))
        ShowServerTests.send(server, userSession, 1, .join(since: nil, name: "Ann"))
        guard case .failure(let error)? = user.reply(1) else { Issue.record("a user renamed itself"); return }
        #expect(error.code == .invalid)
    }

    /// Item 6: one visitor's sessions share one request bucket (20 at once), as a user's do.
    @Test func aVisitorsSessionsShareOneRateLimit() async throws {
        let directory = try TemporaryDirectory("visitors")
        let server = try await Self.server(directory: directory.path)
        defer { server.stop() }
        let (_, _, reply) = Self.visit(server)
        guard let grant = Self.welcome(reply)?.visitor else { Issue.record("no visitor"); return }
        let tabs = (0..<5).map { _ in Self.visit(server, token: grant.token) }
        for request in 0..<10 {
            for (_, session, _) in tabs { ShowServerTests.send(server, session, Int64(2 + request), .unpin) }
            _ = tabs.map { $0.0.reply(Int64(2 + request)) }
        }
        let limited = tabs.flatMap { tab in
            (0..<10).compactMap { request -> ErrorCode? in
                if case .failure(let error)? = tab.0.reply(Int64(2 + request)) { error.code } else { nil }
            }
        }
        // 50 requests from one visitor: the bucket of 20 (and what refilled meanwhile) takes some, the rest wait.
        #expect(limited.filter { $0 == .rateLimited }.count >= 20, "\(limited.count) refused of 50")
    }
}
