import LiveProtocol
import LiveShows
import Testing

/// Issue 34 item 1: user ids are opaque bytes. Two ids that are canonically equivalent (one string to Swift's
/// `==`) but differ in bytes are two users everywhere: role rules, kicks, timeouts, bans, counts, the store.
struct UserIDTests {
    /// "zoë" and "rené" precomposed (U+00EB, U+00E9) and decomposed (e + U+0308, e + U+0301).
    static let zoeComposed = "zo\u{EB}"
    static let zoeDecomposed = "zoe\u{308}"
    static let reneComposed = "ren\u{E9}"
    static let reneDecomposed = "rene\u{301}"

    static let catalog = try! ShowsFile.catalog(from: Array("""
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann", "\(zoeComposed)"], "mods": ["{id}"],
                      "users": "viewer", "visitors": "read_only"}]}
        """.utf8))

    @Test func theFormsAreOneStringToSwiftButNotOneUser() {
        #expect(Self.zoeComposed == Self.zoeDecomposed, "the premise: String == is canonical equivalence")
        #expect(UserID(Self.zoeComposed) != UserID(Self.zoeDecomposed))
        #expect(Set([UserID(Self.zoeComposed), UserID(Self.zoeDecomposed)]).count == 2)
        #expect(UserID(Self.zoeComposed) == UserID("zo\u{EB}"))
        #expect(!UserID.same(Self.reneComposed, Self.reneDecomposed) && UserID.same(nil, nil)
                    && !UserID.same(nil, Self.reneComposed))
    }

    @Test func aRoleRuleNamesTheBytesItLists() {
        let harness = ShowHarness(catalog: Self.catalog)
        #expect(harness.show.role(of: Self.zoeComposed) == .host)
        #expect(harness.show.role(of: Self.zoeDecomposed) == .viewer, "the other form is not the host")
    }

    @Test func kicksTimeoutsAndBansFallOnTheBytesNamed() {
        var harness = ShowHarness(catalog: Self.catalog)
        harness.join(1, "ann")
        harness.join(2, Self.reneComposed)
        harness.join(3, Self.reneDecomposed)
        #expect(harness.show.snapshot.viewers == 2, "two people watch")
        for session in 1...3 { _ = harness.events(UInt64(session)) }

        // A kick ends the named bytes' session only.
        #expect(harness.ask(1, .kick(user: Self.reneComposed)) == .success(.done))
        #expect(harness.events(2) == [.ended(.kicked)])
        #expect(!harness.events(3).contains(.ended(.kicked)) && harness.closed == [SessionID(2)])

        // A timeout silences the named bytes only.
        harness.join(4, Self.reneComposed)
        #expect(harness.ask(1, .timeout(user: Self.reneDecomposed, seconds: 60)) != nil)
        #expect(harness.error(3, .send(text: "decomposed"))?.code == .timeout)
        #expect(harness.error(4, .send(text: "composed")) == nil)

        // A ban ends and refuses the named bytes only.
        #expect(harness.ask(1, .ban(user: Self.reneComposed)) == .success(.done))
        #expect(harness.events(4).contains(.ended(.banned)))
        #expect(!harness.events(3).contains(.ended(.banned)))
        #expect(harness.revokedMedia.map { UserID($0) } == [UserID(Self.reneComposed)])
        guard case .failure(let refused) = harness.join(5, Self.reneComposed) else {
            Issue.record("the banned user joined")
            return
        }
        #expect(refused.code == .banned)
        #expect(harness.welcome(6, Self.reneDecomposed).you.role == .viewer, "the other form is not banned")

        // The store keeps them apart too.
        let record = harness.ledger.load("show:mugs", historyLimit: 10, now: harness.now)
        #expect(record.bans == [UserID(Self.reneComposed)])
        #expect(record.timeouts.keys.map(\.self) == [UserID(Self.reneDecomposed)])
    }
}
