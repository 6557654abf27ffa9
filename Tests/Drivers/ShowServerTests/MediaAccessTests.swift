import Foundation
import LiveProtocol
import ShowServer
import TestSupport
import Testing

/// Issue 34 defect A: a show's media is opened by the token a joined session gets, for that show only, until it
/// expires or its user is banned; sessions get a new one over their connection before theirs expires.
struct MediaAccessTests {
    static func welcome(_ connection: RecordingConnection) -> Welcome? {
        guard case .success(.welcome(let welcome))? = connection.reply(1) else { return nil }
        return welcome
    }

    static func milliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func status(_ decision: MediaDecision) -> Int {
        switch decision {
        case .allowed: 200
        case .refused(let status, _): status
        }
    }

    @Test func aJoinedSessionsTokenOpensItsShowUntilItsUserIsBanned() async throws {
        let directory = try TemporaryDirectory("show-media")
        let server = try await ShowServerTests.server(directory: directory.path)
        let (ann, annSession) = ShowServerTests.joined(server, "ann")
        let (bob, _) = ShowServerTests.joined(server, "bob")
        let visitor = RecordingConnection()
        let visitorSession = server.connected(visitor, streamName: "show:mugs", token: nil)
        ShowServerTests.send(server, visitorSession, 1, .join(since: nil))
        let annAccess = try #require(Self.welcome(ann)?.access, "the host's welcome has no media token")
        let bobAccess = try #require(Self.welcome(bob)?.access, "a viewer's welcome has no media token")
        let visitorAccess = try #require(Self.welcome(visitor)?.access, "a visitor's welcome has no media token")
        #expect(Set([annAccess.token, bobAccess.token, visitorAccess.token]).count == 3)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect((now + 590_000...now + 601_000).contains(bobAccess.expiresAt), "\(bobAccess.expiresAt - now) ms")
        #expect(bobAccess.token.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x2D, 0x2E, 0x5F].contains(byte)
        }, "a media token must need no escaping in a path")

        for access in [annAccess, bobAccess, visitorAccess] {
            #expect(server.checkMedia(stream: "show:mugs", token: access.token) == .allowed)
        }
        // No token, another show's, one altered, one not a token at all: 401, and the reason never holds it.
        var altered = Array(bobAccess.token)
        altered[altered.count - 3] = altered[altered.count - 3] == "A" ? "B" : "A"
        for (stream, token) in [("show:mugs", nil), ("show:other", bobAccess.token),
                                ("show:mugs", String(altered)), ("show:mugs", "m1.junk"), ("show:mugs", "")] {
            let decision = server.checkMedia(stream: stream, token: token)
            #expect(Self.status(decision) == 401, "\(stream) \(token ?? "none"): \(decision)")
            if case .refused(_, let reason) = decision {
                #expect(!reason.contains(bobAccess.token) && !reason.isEmpty, "\(reason)")
            }
        }

        // The host bans bob: his session ends and his token stops working (403); the others' still work.
        ShowServerTests.send(server, annSession, 2, .ban(user: "bob"))
        #expect(ann.reply(2) == .success(.done))
        #expect(bob.wait { $0.closeCode == ShowCloseCode.banned })
        #expect(Self.status(server.checkMedia(stream: "show:mugs", token: bobAccess.token)) == 403)
        #expect(server.checkMedia(stream: "show:mugs", token: visitorAccess.token) == .allowed)
        #expect(server.checkMedia(stream: "show:mugs", token: annAccess.token) == .allowed)
        // Unbanned and joined again: a new token that works (not caught by the revocation of its second).
        ShowServerTests.send(server, annSession, 3, .unban(user: "bob"))
        #expect(ann.reply(3) == .success(.done))
        let (again, _) = ShowServerTests.joined(server, "bob")
        let renewed = try #require(Self.welcome(again)?.access)
        #expect(server.checkMedia(stream: "show:mugs", token: renewed.token) == .allowed)
        server.stop()

        // A restarted server (same secret, same store) refuses every token given before.
        let restarted = try await ShowServerTests.server(directory: directory.path)
        defer { restarted.stop() }
        #expect(Self.status(restarted.checkMedia(stream: "show:mugs", token: annAccess.token)) == 401)
    }

    @Test func tokensAreRenewedOverTheConnectionBeforeTheyExpire() async throws {
        let directory = try TemporaryDirectory("show-media")
        let server = try await ShowServerTests.server(directory: directory.path, mediaTokenLifetime: .seconds(4))
        defer { server.stop() }
        let (bob, _) = ShowServerTests.joined(server, "bob")
        let first = try #require(Self.welcome(bob)?.access)
        func renewal(_ connection: RecordingConnection) -> MediaAccess? {
            for case .access(let access) in connection.events.reversed() { return access }
            return nil
        }
        #expect(bob.wait(timeout: 6) { renewal($0) != nil }, "no access event within 6 s of a 4 s token")
        let second = try #require(renewal(bob))
        #expect(second.token != first.token && second.expiresAt > first.expiresAt)
        #expect(second.expiresAt - Int64(Date().timeIntervalSince1970 * 1000) > 1000,
                "renewed with less than a second left")
        #expect(server.checkMedia(stream: "show:mugs", token: second.token) == .allowed)
        // The first one expires on time, not before (the renewed one keeps working).
        var decision = MediaDecision.allowed
        var refusedAt: Int64 = 0
        let deadline = first.expiresAt + 1500
        while decision == .allowed, Self.milliseconds() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            decision = server.checkMedia(stream: "show:mugs", token: first.token)
            refusedAt = Self.milliseconds()
        }
        #expect(Self.status(decision) == 401, "still \(decision) 1.5 s after it expired")
        #expect(refusedAt >= first.expiresAt, "refused \(first.expiresAt - refusedAt) ms before it expired")
        if case .refused(_, let reason) = decision { #expect(reason.contains("expired"), "\(reason)") }
        #expect(bob.wait(timeout: 4) { renewal($0).map { $0.expiresAt > second.expiresAt } ?? false })
        #expect(server.checkMedia(stream: "show:mugs", token: renewal(bob)?.token) == .allowed)
    }
}
