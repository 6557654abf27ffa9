import LiveProtocol
import LiveShows
import Testing

/// What every ``ShowStore`` must do, checked against the reference ``ShowLedger``: the SQLite and PostgreSQL
/// stores' tests run these same checks on their own store.
public enum ShowStoreContract {
    /// A deterministic mix of every write over two shows, with refusals (deleting or pinning what is gone).
    public static func script(count: Int) -> [(show: String, write: StoreWrite)] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // "zoë" twice: precomposed and decomposed, one string to Swift's == but two users (issue 34 item 1).
        let users = ["ann", "bob", "eve", nil, "zo\u{EB}", "zoe\u{308}"]
        var writes: [(String, StoreWrite)] = []
        for index in 0..<count {
            let show = next(3) == 0 ? "show:cups" : "show:mugs"
            let user = users[next(users.count)]
            let write: StoreWrite = switch next(16) {
            case 0...5: .message(MessageDraft(user: user, name: user ?? "visitor", role: .viewer,
                                              text: "message \(index) ☕ \"quoted\"\nline", time: Int64(index)))
            case 6: .deleteMessage(id: Int64(next(index + 2)))
            case 7: .pin(id: next(2) == 0 ? nil : Int64(next(index + 2)))
            case 8: .slow(next(60))
            case 9: .ban(user: user ?? "x")
            case 10: .unban(user: user ?? "x")
            case 11: .timeout(user: user ?? "x", until: Int64(1000 + next(2000)))
            case 12: next(4) == 0 ? .clearChat : .reaction(.heart)
            case 13: .ingestKey(IngestKeyRecord(hash: "h\(index)", nonce: "n\(index)"))
            case 14: [StoreWrite.tileStarted(.camera, generation: Int64(next(2))), .tileStopped(.camera, generation: 0),
                      .tileStarted(.obs, generation: 0), .end, .reopen, .setMain(.obs), .setMain(nil)][next(7)]
            default: .kick(user: user ?? "x")
            }
            writes.append((show, write))
        }
        return writes
    }

    /// A message by bob.
    public static func draft(_ text: String, at time: Int64) -> StoreWrite {
        .message(MessageDraft(user: "bob", name: "Bob", role: .viewer, text: text, time: time))
    }

    /// Whatever the batching, the store answers every write of ``script(count:)`` as the ledger does, and loads the
    /// same records and key owners.
    public static func behavesAsTheLedger(_ store: any ShowStore, epoch: String, batchSize: Int,
                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        var ledger = ShowLedger(epoch: epoch)
        let writes = script(count: 600)
        var start = 0
        while start < writes.count {
            let batch = Array(writes[start..<min(start + batchSize, writes.count)])
            let results = try store.commit(batch)
            #expect(results.count == batch.count, sourceLocation: sourceLocation)
            for (write, result) in zip(batch, results) {
                let expected = ledger.commit(write.show, write.write)
                #expect(result == expected, "\(write.write)", sourceLocation: sourceLocation)
            }
            start += batchSize
        }
        for show in ["show:mugs", "show:cups", "show:none"] {
            for limit in [3, 500] {
                #expect(try store.load(show, historyLimit: limit, now: 1500)
                        == ledger.load(show, historyLimit: limit, now: 1500), sourceLocation: sourceLocation)
            }
        }
        #expect(try store.ingestKeyOwners() == ledger.ingestKeyOwners(), sourceLocation: sourceLocation)
    }

    /// Bans and timeouts are kept by the user id's bytes: of two canonically equivalent ids, only the one named.
    public static func keepsUserIDsByTheirBytes(_ store: any ShowStore,
                                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        _ = try store.commit([("show:mugs", .ban(user: "zo\u{EB}")),
                              ("show:mugs", .timeout(user: "zoe\u{308}", until: 9000))])
        let record = try store.load("show:mugs", historyLimit: 10, now: 1000)
        #expect(record.bans == [UserID("zo\u{EB}")] && !record.bans.contains(UserID("zoe\u{308}")),
                sourceLocation: sourceLocation)
        #expect(record.timeouts == [UserID("zoe\u{308}"): 9000] && record.timeouts[UserID("zo\u{EB}")] == nil,
                sourceLocation: sourceLocation)
    }

    /// Everything survives closing and opening again, except published tiles (no publisher outlives the process).
    /// - Parameter open: opens the store (the first store is released before the second opens).
    public static func reopeningKeepsEverythingButTiles(_ open: () throws -> (store: any ShowStore, epoch: String),
                                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        var ledger: ShowLedger
        let epoch: String
        do {
            let (store, opened) = try open()
            epoch = opened
            ledger = ShowLedger(epoch: epoch)
            for write in script(count: 300) + [("show:mugs", .tileStarted(.camera, generation: 0))] {
                let result = try store.commit([write])
                #expect(result == [ledger.commit(write.show, write.write)], sourceLocation: sourceLocation)
            }
        }
        ledger.restart()
        let (reopened, reopenedEpoch) = try open()
        #expect(reopenedEpoch == epoch, sourceLocation: sourceLocation)
        for show in ["show:mugs", "show:cups"] {
            let record = try reopened.load(show, historyLimit: 500, now: 0)
            #expect(record == ledger.load(show, historyLimit: 500, now: 0), sourceLocation: sourceLocation)
            #expect(record.media.tiles.isEmpty, sourceLocation: sourceLocation)
        }
    }

    /// Old chat goes, oldest first and a bounded amount at a time; a pinned message and recent chat stay, and so
    /// do timeouts still running (the caller checks those with the database's own program).
    public static func pruningRemovesOldChatButThePinnedMessage(
        _ store: any ShowStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let old = (1...7).map { ("show:mugs", draft("old \($0)", at: Int64($0))) }
            + [("show:cups", draft("old cups", at: 8))]
        _ = try store.commit(old + [("show:mugs", .pin(id: 2)), ("show:mugs", draft("new", at: 1000)),
                                    ("show:mugs", .timeout(user: "eve", until: 50)),
                                    ("show:cups", .timeout(user: "zoë", until: 5000))])
        #expect(try store.prune(before: 100, limit: 4) == 4, sourceLocation: sourceLocation)
        #expect(try store.prune(before: 100, limit: 4) == 3, sourceLocation: sourceLocation)
        #expect(try store.prune(before: 100, limit: 4) == 0, sourceLocation: sourceLocation)
        let mugs = try store.load("show:mugs", historyLimit: 500, now: 0)
        #expect(mugs.history.map(\.text) == ["old 2", "new"], sourceLocation: sourceLocation)
        #expect(mugs.pinned?.text == "old 2", sourceLocation: sourceLocation)
        #expect(try store.load("show:cups", historyLimit: 500, now: 0).history.isEmpty, sourceLocation: sourceLocation)
    }
}
