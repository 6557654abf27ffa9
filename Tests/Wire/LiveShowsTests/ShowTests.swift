import LiveProtocol
import LiveShows
import Testing

/// Joining, roles and the count of who watches.
struct ShowTests {
    @Test func joinWelcomesWithTheShowTheStandingAndTheChat() throws {
        var harness = ShowHarness()
        let welcome = harness.welcome(1, "bob")
        #expect(welcome.show == ShowSnapshot(name: "show:mugs", state: .idle, tiles: [], main: nil, viewers: 1,
                                             pinned: nil, slow: 0, reactions: Reaction.allCases))
        #expect(welcome.you == SessionStanding(user: "bob", name: "bob", role: .viewer, canWrite: true))
        #expect(welcome.chat == ChatSync(epoch: "e1", seq: 0, reset: true, messages: [], deleted: []))
    }

    @Test(arguments: [("ann", Role.host, true), ("mugs", .mod, true), ("bob", .viewer, true),
                      ("rita", .readOnly, false)])
    func rolesFromTheRule(user: String, role: Role, canWrite: Bool) {
        var harness = ShowHarness()
        let you = harness.welcome(1, user).you
        #expect(you.role == role)
        #expect(you.canWrite == canWrite)
    }

    @Test func visitorsHaveNoUserID() {
        var harness = ShowHarness(catalog: ShowHarness.seedCatalog(visitors: .viewer))
        let you = harness.welcome(1, nil).you
        #expect(you.user == nil)
        #expect(you.name == "visitor-1")
        #expect(you.role == .viewer)
    }

    @Test func roleNoneIsUnauthorizedAndClosed() {
        var harness = ShowHarness(catalog: ShowHarness.seedCatalog(visitors: .none))
        guard case .failure(let visitor) = harness.join(1, nil) else { Issue.record("a visitor joined"); return }
        #expect(visitor.code == .unauthorized)
        #expect(visitor.reason == "sign in to watch show:mugs")
        guard case .failure(let nobody) = harness.join(2, "nobody") else { Issue.record("nobody joined"); return }
        #expect(nobody.code == .unauthorized)
        #expect(harness.closed == [SessionID(1), SessionID(2)])
        #expect(harness.show.sessionCount == 0)
    }

    @Test func joiningTwiceIsInvalid() {
        var harness = ShowHarness()
        harness.join(1, "bob")
        guard case .failure(let error) = harness.join(1, "bob") else { Issue.record("joined twice"); return }
        #expect(error.code == .invalid)
        #expect(harness.error(1, .join(since: nil))?.code == .invalid)
    }

    @Test func requestsBeforeJoiningAreRefused() {
        var harness = ShowHarness()
        #expect(harness.error(1, .send(text: "hi"))?.reason == "join first")
    }

    /// Distinct watchers: a user's second session does not count again; hosts are not counted; a visitor counts
    /// per session (they cannot be told apart).
    @Test func viewersAreDistinctWatchers() {
        var harness = ShowHarness(catalog: ShowHarness.seedCatalog(visitors: .readOnly))
        harness.join(1, "ann")
        harness.join(2, "bob")
        harness.join(3, "bob")
        harness.join(4, nil)
        harness.join(5, nil)
        #expect(harness.show.snapshot.viewers == 3)
        harness.run(harness.show.disconnected(SessionID(2), now: harness.now))
        #expect(harness.show.snapshot.viewers == 3)
        harness.run(harness.show.disconnected(SessionID(3), now: harness.now))
        harness.run(harness.show.disconnected(SessionID(3), now: harness.now))  // twice is harmless
        #expect(harness.show.snapshot.viewers == 2)
    }

    /// The count goes out at once, then at most once a second with the latest value.
    @Test func viewerUpdatesAreCoalescedToOnePerSecond() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        harness.join(2, "bob")  // sent at once: 1
        #expect(harness.events(1) == [.viewers(1)])
        harness.advance(milliseconds: 100)
        for session in 3...40 { harness.join(UInt64(session), "user\(session)") }
        harness.advance(milliseconds: 100)
        #expect(harness.events(1).isEmpty)
        #expect(harness.show.nextDeadline == ShowHarness.start + 1000)
        harness.advance(milliseconds: 800)
        #expect(harness.events(1) == [.viewers(39)])
        #expect(harness.show.nextDeadline == nil)
        // A change that comes back to the announced count before the second is up sends nothing.
        harness.advance(milliseconds: 100)
        harness.join(41, "late")
        harness.run(harness.show.disconnected(SessionID(41), now: harness.now))
        harness.advance(milliseconds: 1000)
        #expect(harness.events(1).isEmpty)
    }

    @Test func leaveRepliesEndsAndCloses() {
        var harness = ShowHarness()
        harness.join(1, "bob")
        _ = harness.events(1)
        #expect(harness.ask(1, .leave) == .success(.done))
        #expect(harness.events(1) == [.ended(.left)])
        #expect(harness.closed == [SessionID(1)])
        #expect(harness.show.sessionCount == 0)
        #expect(harness.show.isDormant(now: harness.now))
    }

    @Test func requestsAreRateLimitedPerUser() {
        var harness = ShowHarness()
        harness.join(1, "bob")
        harness.join(2, "eve")
        for _ in 0..<20 { _ = harness.ask(1, .unpin) }
        let limited = harness.error(1, .unpin)
        #expect(limited?.code == .rateLimited)
        #expect(limited?.retryAfter == 1)
        #expect(harness.error(2, .unpin)?.code == .notHost)  // another user is not limited
        harness.advance(milliseconds: 200)
        #expect(harness.error(1, .unpin)?.code == .notHost)
    }

    /// Issue 34 item 6: one user with five sessions had five request rates (100 sends at once). A user's sessions
    /// share one: 20 at once across all five, the rest `rate_limited`; each visitor (no user) is its own sender.
    @Test func aUsersSessionsShareOneRequestRate() {
        var harness = ShowHarness()
        for session in 1...5 { harness.join(UInt64(session), "bob") }
        harness.join(6, nil)
        var accepted = 0
        var limited = 0
        for round in 0..<20 {
            for session in 1...5 {
                switch harness.ask(UInt64(session), .send(text: "round \(round)")) {
                case .success?: accepted += 1
                case .failure(let error)? where error.code == .rateLimited: limited += 1
                default: break
                }
            }
        }
        #expect(accepted == 20 && limited == 80, "accepted \(accepted), limited \(limited)")
        #expect(harness.error(6, .unpin)?.code == .notHost, "a visitor is another sender")
        // What refills in a second is shared too: ten more across the five.
        harness.advance(milliseconds: 1000)
        let next = (1...5).flatMap { session in
            (0..<4).map { _ in harness.ask(UInt64(session), .send(text: "later")) }
        }
        #expect(next.filter { if case .success? = $0 { true } else { false } }.count == 10)
    }
}
