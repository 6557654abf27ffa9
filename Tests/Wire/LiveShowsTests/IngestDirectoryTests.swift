import LiveProtocol
import LiveShows
import Testing

struct IngestDirectoryTests {
    static let credentials = ShowHarness.credentials

    @Test func grantsRoundTripAndResistTampering() throws {
        let grant = Self.credentials.grant(show: "show:mugs", tile: .screen, generation: 3, expiresAt: 1000)
        #expect(grant.hasPrefix("grant_73686f773a6d756773_screen_3_1000_"))
        let claims = try #require(Self.credentials.readGrant(grant))
        #expect(claims.show == "show:mugs" && claims.tile == .screen)
        #expect(claims.generation == 3 && claims.expiresAt == 1000)
        let forged = grant.split(separator: "_", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset == 4 ? "9999" : String($0.element) }.joined(separator: "_")
        #expect(Self.credentials.readGrant(forged) == nil)
        let otherServer = IngestCredentials(keyDerivationKey: [1], grantKey: [2])
        #expect(otherServer.readGrant(grant) == nil)
        for bad in ["grant_", "grant_zz_camera_0_1_00", "grant_61_camera_x_1_" + String(repeating: "0", count: 32)] {
            #expect(Self.credentials.readGrant(bad) == nil)
        }
    }

    @Test func obsKeysAreDerivedAgainFromTheNonce() {
        let made = Self.credentials.makeIngestKey(show: "show:mugs", entropy: [UInt8](repeating: 7, count: 16))
        #expect(made.record.nonce == String(repeating: "07", count: 16))
        #expect(Self.credentials.ingestKey(show: "show:mugs", nonce: made.record.nonce) == made.key)
        #expect(Self.credentials.ingestKey(show: "show:cups", nonce: made.record.nonce) != made.key)
        #expect(IngestCredentials.hash(made.key) == made.record.hash)
    }

    /// A second publisher on a busy tile is refused (no hijack); after the first stops, it may publish.
    @Test func oneStreamPerTile() throws {
        var directory = IngestDirectory()
        let made = Self.credentials.makeIngestKey(show: "show:mugs", entropy: [UInt8](repeating: 1, count: 16))
        directory.update("show:mugs", .init(generation: 0, ended: false, keyHash: made.record.hash))
        guard case .allow(let ticket) = directory.authorize(streamKey: made.key, now: 0, credentials: Self.credentials)
        else { Issue.record("refused"); return }
        directory.started(ticket)
        #expect(directory.authorize(streamKey: made.key, now: 0, credentials: Self.credentials)
                == .refuse("the OBS picture is already being published"))
        directory.stopped(ticket)
        #expect(directory.authorize(streamKey: made.key, now: 0, credentials: Self.credentials) == .allow(ticket))
    }

    @Test func otherKeysAreLeftToTheIngest() {
        let directory = IngestDirectory()
        #expect(directory.authorize(streamKey: "my-plain-key", now: 0, credentials: Self.credentials) == .notAShowKey)
        #expect(directory.authorize(streamKey: "live_0000", now: 0, credentials: Self.credentials)
                == .refuse("unknown or renewed OBS key"))
    }

    @Test func anEndedShowRefusesItsOBSKey() {
        var directory = IngestDirectory()
        let made = Self.credentials.makeIngestKey(show: "show:mugs", entropy: [UInt8](repeating: 1, count: 16))
        directory.update("show:mugs", .init(generation: 2, ended: true, keyHash: made.record.hash))
        #expect(directory.authorize(streamKey: made.key, now: 0, credentials: Self.credentials)
                == .refuse("the host ended the show: go live again to reopen it"))
    }

    @Test func plainShowsAreForgottenOthersKept() {
        var directory = IngestDirectory()
        directory.update("show:plain", .init(generation: 0, ended: false, keyHash: nil))
        directory.update("show:ended", .init(generation: 1, ended: true, keyHash: nil))
        directory.update("show:keyed", .init(generation: 0, ended: false, keyHash: "abc"))
        for name in ["show:plain", "show:ended", "show:keyed"] { directory.forgetIfPlain(name) }
        #expect(directory.entry("show:plain") == nil)
        #expect(directory.entry("show:ended") != nil)
        #expect(directory.entry("show:keyed") != nil)
    }
}
