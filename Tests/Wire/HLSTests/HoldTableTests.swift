import HLS
import Testing

/// The hold table alone: positions and resources made up, the time given by hand (no thread, no sleep).
@Suite struct HoldTableTests {
    typealias Table = HoldTable<String>

    static let epoch = "mifx3k2a"

    /// Segment 4 complete (6 parts), segment 5 open with `parts` parts.
    static func position(parts: Int, ended: Bool = false) -> PlaylistPosition {
        PlaylistPosition(lastCompleteMSN: 4, openMSN: 5, openPartCount: parts, isEnded: ended,
                         partCounts: [3: 6, 4: 6])
    }

    /// A packager's answers for `position`: parts of segment 5 up to its open part exist, the next one is pending.
    static func resources(_ position: PlaylistPosition) -> (ResourceName) -> ResourceLookup {
        { name in
            guard case .part(let epoch, let msn, let index) = name, epoch == Self.epoch else { return .notFound }
            if msn < 5 || (msn == 5 && index < position.openPartCount) { return .available([0x00]) }
            return msn == 5 && index == position.openPartCount && !position.isEnded ? .pending : .notFound
        }
    }

    static func hold(_ table: inout Table, _ request: Table.Request, key: UInt64, _ waiter: String,
                     until deadline: Duration, at position: PlaylistPosition) -> Table.HoldOutcome {
        table.hold(request, key: key, waiter: waiter, deadline: deadline, position: position,
                   isEnded: position.isEnded, resource: resources(position))
    }

    static func release(_ table: inout Table, at position: PlaylistPosition) -> Table.Action {
        table.release(position: position, isEnded: position.isEnded, resource: resources(position))
    }

    static let nextPart = Table.Request.resource(.part(epoch: epoch, msn: 5, index: 2))
    static let nextReload = Table.Request.playlist(BlockingReload.Directives(msn: 5, part: 2))

    @Test func aReloadAndTheHintedPartWaitForThePartThenGoTogetherPartFirst() throws {
        var table = Table()
        let before = Self.position(parts: 2)
        #expect(Table.answer(Self.nextReload, position: before, isEnded: false,
                             resource: Self.resources(before)) == nil)
        guard case .held(let deadline) = Self.hold(&table, Self.nextReload, key: 1, "reload", until: .seconds(6),
                                                   at: before) else { Issue.record("not held"); return }
        #expect(deadline == .seconds(6))
        _ = Self.hold(&table, Self.nextPart, key: 2, "part", until: .seconds(7), at: before)
        _ = Self.hold(&table, Self.nextPart, key: 3, "part too", until: .seconds(7), at: before)
        #expect(table.count == 3)

        // A change that does not bring part 2 (a tag that completes nothing a waiter asked for) answers no one.
        let unchanged = Self.release(&table, at: before)
        #expect(unchanged.releases.isEmpty)
        #expect(unchanged.nextDeadline == .seconds(6))
        #expect(table.count == 3)

        let action = Self.release(&table, at: Self.position(parts: 3))
        #expect(action.releases.map(\.answer) == [.media(.part(epoch: Self.epoch, msn: 5, index: 2)),
                                                  .playlist(blocking: true)])
        #expect(Set(action.releases[0].waiters) == ["part", "part too"])
        #expect(action.releases[1].waiters == ["reload"])
        #expect(action.count == 3)
        #expect(action.nextDeadline == nil)
        #expect(table.isEmpty && table.nextDeadline == nil)
    }

    @Test func eachDistinctRequestIsDecidedOnceWhateverWaitsForIt() {
        var table = Table()
        let before = Self.position(parts: 2)
        for key in 0..<200 as Range<UInt64> {
            _ = Self.hold(&table, key % 2 == 0 ? Self.nextPart : Self.nextReload, key: key, "\(key)",
                          until: .seconds(6), at: before)
        }
        var lookups = 0
        let after = Self.position(parts: 3)
        let action = table.release(position: after, isEnded: false) { name in
            lookups += 1
            return Self.resources(after)(name)
        }
        #expect(lookups == 1)
        #expect(action.releases.count == 2)
        #expect(action.releases.map(\.waiters.count) == [100, 100])
    }

    @Test func aHoldEndsAtItsDeadlineNotBeforeEachAtItsOwn() {
        var table = Table()
        let position = Self.position(parts: 2)
        // Two segments ahead: allowed (RFC 8216bis §6.2.5.2), and never satisfied here.
        let far = Table.Request.playlist(BlockingReload.Directives(msn: 7))
        _ = Self.hold(&table, far, key: 1, "late", until: .seconds(6), at: position)
        _ = Self.hold(&table, Self.nextPart, key: 2, "early", until: .milliseconds(1500), at: position)
        #expect(table.nextDeadline == .milliseconds(1500))

        let tooSoon = table.expire(now: .milliseconds(1499), hasPlaylist: true)
        #expect(tooSoon.releases.isEmpty)
        #expect(tooSoon.nextDeadline == .milliseconds(1500))
        #expect(table.count == 2)

        let first = table.expire(now: .milliseconds(1500), hasPlaylist: true)
        #expect(first.releases.map(\.answer) == [.unavailable])
        #expect(first.releases.first?.waiters == ["early"])
        #expect(first.nextDeadline == .seconds(6))

        #expect(table.expire(now: .milliseconds(5999), hasPlaylist: true).releases.isEmpty)
        let second = table.expire(now: .seconds(8), hasPlaylist: true)
        #expect(second.releases.first?.waiters == ["late"])
        #expect(second.nextDeadline == nil)
        #expect(table.isEmpty)
    }

    /// Before the first segment a playlist request waits for it, and its hold ends in 404 (there is nothing to ask
    /// again for yet); a resource's ends in 503.
    @Test func beforeTheFirstSegmentAPlaylistHoldEndsIn404() {
        var table = Table()
        let playlist = Table.Request.playlist(BlockingReload.Directives())
        let noSegment: (ResourceName) -> ResourceLookup = { _ in .pending }
        #expect(Table.answer(playlist, position: nil, isEnded: false, resource: noSegment) == nil)
        _ = table.hold(playlist, key: 1, waiter: "playlist", deadline: .seconds(10), position: nil, isEnded: false,
                       resource: noSegment)
        _ = table.hold(Self.nextPart, key: 2, waiter: "part", deadline: .seconds(10), position: nil, isEnded: false,
                       resource: noSegment)
        let action = table.expire(now: .seconds(10), hasPlaylist: false)
        #expect(action.releases.map(\.answer) == [.unavailable, .notFound("the stream has no playlist yet")])
        #expect(action.releases.map(\.waiters) == [["part"], ["playlist"]])
        #expect(Table.ended(playlist, hasPlaylist: false) == .notFound("the stream has no playlist yet"))
        #expect(Table.ended(playlist, hasPlaylist: true) == .unavailable)
    }

    @Test func badRequestsAreAnsweredAtOnceAndNeverHeld() {
        var table = Table()
        let position = Self.position(parts: 2)
        let requests: [(BlockingReload.Directives, String)] = [
            (BlockingReload.Directives(part: 1), "_HLS_part needs _HLS_msn (RFC 8216bis §6.2.5.2)"),
            (BlockingReload.Directives(msn: 8), "_HLS_msn=8 is more than two past the last segment (5)"),
            (BlockingReload.Directives(msn: 5, part: 6), "_HLS_part=6 is more than 3 parts past the last (1)"),
        ]
        for (key, (directives, reason)) in requests.enumerated() {
            let outcome = Self.hold(&table, .playlist(directives), key: UInt64(key), "bad", until: .seconds(6),
                                    at: position)
            guard case .answer(let answer) = outcome else { Issue.record("held: \(directives)"); continue }
            #expect(answer == .badRequest(reason))
        }
        #expect(table.isEmpty)
        // What exists is answered at once too: a plain reload, and a past part.
        let plain = Self.hold(&table, .playlist(BlockingReload.Directives()), key: 9, "plain", until: .seconds(6),
                              at: position)
        guard case .answer(.playlist(blocking: false)) = plain else { Issue.record("\(plain)"); return }
        let past = Self.hold(&table, .resource(.part(epoch: Self.epoch, msn: 5, index: 0)), key: 10, "past",
                             until: .seconds(6), at: position)
        guard case .answer(.media) = past else { Issue.record("\(past)"); return }
        #expect(table.isEmpty)
    }

    @Test func theEndAnswersEveryWaiter() {
        var table = Table()
        let position = Self.position(parts: 2)
        _ = Self.hold(&table, Self.nextReload, key: 1, "reload", until: .seconds(6), at: position)
        _ = Self.hold(&table, Self.nextPart, key: 2, "part", until: .seconds(6), at: position)
        let action = Self.release(&table, at: Self.position(parts: 2, ended: true))
        // The ended playlist is complete (directives are ignored, and it is not a blocking answer); the hinted part
        // will never be made.
        #expect(Set(action.releases.map(\.answer)) == [
            .playlist(blocking: false), .notFound("no such part or segment (it may have left the window)"),
        ])
        #expect(table.isEmpty && action.nextDeadline == nil)

        // Ended before its first segment.
        let playlist = Table.Request.playlist(BlockingReload.Directives())
        _ = table.hold(playlist, key: 3, waiter: "early", deadline: .seconds(6), position: nil, isEnded: false) { _ in
            .pending
        }
        let early = table.release(position: nil, isEnded: true) { _ in .notFound }
        #expect(early.releases.map(\.answer) == [.notFound("the stream ended before its first segment")])
    }

    @Test func aCancelledWaiterIsGoneAndTheNextDeadlineMoves() throws {
        var table = Table()
        let position = Self.position(parts: 2)
        _ = Self.hold(&table, Self.nextPart, key: 1, "first", until: .seconds(1), at: position)
        _ = Self.hold(&table, Self.nextPart, key: 2, "second", until: .seconds(2), at: position)
        let first = table.cancel(1)
        let cancelled = try #require(first)
        #expect(cancelled.waiter == "first" && cancelled.request == Self.nextPart)
        let again = table.cancel(1)
        #expect(again == nil)
        #expect(table.nextDeadline == .seconds(2))
        #expect(table.expire(now: .seconds(1), hasPlaylist: true).releases.isEmpty)

        let replaced = table.removeAll(answer: .notFound("the stream restarted"))
        #expect(replaced.releases.map(\.waiters) == [["second"]])
        #expect(table.isEmpty && table.nextDeadline == nil)
        #expect(Self.release(&table, at: Self.position(parts: 3)).releases.isEmpty)
    }
}
