import LiveProtocol
import LiveShows
import Testing

/// Going live: grants, the pictures and the main picture, end, and OBS keys.
struct ShowLiveTests {
    @Test func goLiveGrantsTheCameraByDefault() throws {
        var harness = ShowHarness()
        harness.join(1, "ann")
        guard case .success(.grants(let grants))? = harness.ask(1, .goLive(tiles: [])) else {
            Issue.record("no grants")
            return
        }
        #expect(grants.map(\.tile) == [.camera])
        #expect(grants[0].url == ShowHarness.ingestURL)
        #expect(grants[0].expiresAt == ShowHarness.start + 60_000)
        let verdict = harness.directory.authorize(streamKey: grants[0].key, now: harness.now,
                                                  credentials: ShowHarness.credentials)
        guard case .allow(let ticket) = verdict else { Issue.record("grant refused: \(verdict)"); return }
        #expect(ticket.show == "show:mugs" && ticket.tile == .camera && ticket.keyHash == nil)
        #expect(!harness.show.isDormant(now: harness.now))  // a grant is outstanding
        #expect(harness.error(1, .goLive(tiles: [.obs]))?.code == .invalid)
    }

    /// Live while any host picture is published; the main picture is the host's choice, else screen, OBS, camera.
    @Test func picturesMakeTheShowLiveAndChooseTheMain() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        harness.join(2, "bob")
        _ = harness.events(2)
        harness.run(harness.show.publishStarted(.camera, generation: 0))
        #expect(harness.events(2) == [.state(.live), .tiles([.camera], main: .camera), .media(main: .camera)])
        harness.run(harness.show.publishStarted(.obs, generation: 0))
        #expect(harness.events(2) == [.tiles([.camera, .obs], main: .obs), .media(main: .obs)])
        harness.run(harness.show.publishStarted(.screen, generation: 0))
        #expect(harness.events(2) == [.tiles([.camera, .screen, .obs], main: .screen), .media(main: .screen)])
        #expect(harness.ask(1, .setMain(.camera)) == .success(.done))
        #expect(harness.events(2) == [.tiles([.camera, .screen, .obs], main: .camera), .media(main: .camera)])
        harness.run(harness.show.publishStopped(.camera, generation: 0))
        #expect(harness.events(2) == [.tiles([.screen, .obs], main: .screen), .media(main: .screen)])
        harness.run(harness.show.publishStopped(.screen, generation: 0))
        harness.run(harness.show.publishStopped(.obs, generation: 0))
        #expect(harness.events(2) == [.tiles([.obs], main: .obs), .media(main: .obs), .state(.idle),
                                      .tiles([], main: nil), .media(main: nil)])
        #expect(harness.welcome(3, "eve").show.state == .idle)
    }

    /// `end()` stops every picture: ended, media off, publishers cut, old grants refused; going live reopens.
    @Test func endStopsEverythingAndGoingLiveReopens() throws {
        var harness = ShowHarness()
        harness.join(1, "ann")
        harness.join(2, "bob")
        guard case .success(.grants(let old))? = harness.ask(1, .goLive(tiles: [.camera, .screen])) else {
            Issue.record("no grants")
            return
        }
        harness.run(harness.show.publishStarted(.camera, generation: 0))
        _ = harness.events(2)
        #expect(harness.ask(1, .end) == .success(.done))
        #expect(harness.events(2) == [.state(.ended), .tiles([], main: nil), .media(main: nil)])
        #expect(harness.cuts == [nil])
        #expect(harness.directory.entry("show:mugs") == IngestDirectory.Entry(generation: 1, ended: true, keyHash: nil))
        #expect(harness.directory.authorize(streamKey: old[1].key, now: harness.now,
                                            credentials: ShowHarness.credentials)
                == .refuse("the publish grant is from before the show ended"))
        // The old publisher's stop arrives after the end: stale, ignored.
        harness.run(harness.show.publishStopped(.camera, generation: 0))
        #expect(harness.events(2).isEmpty)
        guard case .success(.grants(let new))? = harness.ask(1, .goLive(tiles: [])) else {
            Issue.record("no grants")
            return
        }
        #expect(harness.events(2) == [.state(.idle)])
        guard case .allow(let ticket) = harness.directory.authorize(streamKey: new[0].key, now: harness.now,
                                                                  credentials: ShowHarness.credentials) else {
            Issue.record("new grant refused")
            return
        }
        #expect(ticket.generation == 1)
        harness.run(harness.show.publishStarted(.camera, generation: 1))
        #expect(harness.events(2).first == .state(.live))
    }

    @Test func grantsExpire() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        guard case .success(.grants(let grants))? = harness.ask(1, .goLive(tiles: [])) else { return }
        #expect(harness.directory.authorize(streamKey: grants[0].key, now: harness.now + 60_001,
                                            credentials: ShowHarness.credentials)
                == .refuse("the publish grant expired"))
        #expect(harness.show.isDormant(now: harness.now + 60_001) == false)  // the host is still here
    }

    /// OBS: the same key until renewed; renewing refuses the old key and cuts its publisher.
    @Test func ingestKeysAreStoredAsHashesAndRenewCutsTheOldOne() throws {
        var harness = ShowHarness()
        harness.join(1, "ann")
        guard case .success(.ingest(let first))? = harness.ask(1, .ingest(renew: false)) else {
            Issue.record("no key")
            return
        }
        #expect(first.url == ShowHarness.ingestURL)
        #expect(first.key.hasPrefix("live_") && first.key.count == 69)
        let stored = try #require(harness.ledger.load("show:mugs", historyLimit: 1, now: 0).ingestKey)
        #expect(stored.hash == IngestCredentials.hash(first.key))
        #expect(!stored.hash.contains(first.key.dropFirst(5)) && !stored.nonce.contains(first.key.dropFirst(5)))
        guard case .success(.ingest(let again))? = harness.ask(1, .ingest(renew: false)) else { return }
        #expect(again == first)
        guard case .allow(let ticket) = harness.directory.authorize(streamKey: first.key, now: harness.now,
                                                                  credentials: ShowHarness.credentials) else {
            Issue.record("OBS key refused")
            return
        }
        #expect(ticket.tile == .obs && ticket.keyHash == stored.hash)
        guard case .success(.ingest(let renewed))? = harness.ask(1, .ingest(renew: true)) else { return }
        #expect(renewed.key != first.key)
        #expect(harness.cuts == [stored.hash])
        #expect(harness.directory.authorize(streamKey: first.key, now: harness.now,
                                            credentials: ShowHarness.credentials)
                == .refuse("unknown or renewed OBS key"))
        guard case .allow = harness.directory.authorize(streamKey: renewed.key, now: harness.now,
                                                        credentials: ShowHarness.credentials) else {
            Issue.record("renewed key refused")
            return
        }
    }

    @Test func aShowWithoutIngestCannotGoLive() {
        var harness = ShowHarness(configure: { $0.ingestURL = nil })
        harness.join(1, "ann")
        #expect(harness.error(1, .goLive(tiles: []))?.code == .unavailable)
        #expect(harness.error(1, .ingest(renew: false))?.code == .unavailable)
    }

    /// A show loaded from the store after a restart has its key, its generation and its ended flag.
    @Test func reloadedShowKeepsItsKeyAndState() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        guard case .success(.ingest(let key))? = harness.ask(1, .ingest(renew: false)) else { return }
        _ = harness.ask(1, .end)
        var ledger = harness.ledger
        ledger.restart()
        var reloaded = ShowHarness(ledger: ledger)
        #expect(reloaded.directory.entry("show:mugs")
                == IngestDirectory.Entry(generation: 1, ended: true, keyHash: IngestCredentials.hash(key.key)))
        reloaded.join(1, "ann")
        guard case .success(.ingest(let same))? = reloaded.ask(1, .ingest(renew: false)) else { return }
        #expect(same == key)
        #expect(reloaded.welcome(2, "bob").show.state == .ended)
    }
}
