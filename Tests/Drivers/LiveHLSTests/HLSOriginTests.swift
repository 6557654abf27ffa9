import FLV
import Foundation
import HLS
import Locking
import Testing
import TestSupport
@testable import LiveHLS

@Suite struct HLSOriginTests {
    static let tag = "3f2a9c013f2a9c013f2a9c013f2a9c01"
    static let id = HLSStreamID(app: "live", tag: tag)!

    /// An origin with a publish that has run `milliseconds` of the synthetic stream.
    static func origin(milliseconds: Int, configuration: HLSOrigin.Configuration = HLSOrigin.Configuration(),
                       clock: ManualClock? = nil) -> (HLSOrigin, SyntheticStream, [FLVTag]) {
        let origin = clock.map { HLSOrigin(configuration: configuration, clock: $0.holdClock) }
            ?? HLSOrigin(configuration: configuration)
        let stream = SyntheticStream()
        origin.publishStarted(id)
        for tag in stream.headers { origin.append(tag, to: id) }
        let all = stream.media(milliseconds: 20_000)
        let sent = all.prefix { $0.timestamp < UInt32(milliseconds) }
        for tag in sent { origin.append(tag, to: id) }
        return (origin, stream, Array(all.dropFirst(sent.count)))
    }

    static func text(_ reply: HLSReply) -> String { String(decoding: reply.body, as: UTF8.self) }

    /// The holds' time, moved by hand; the origin runs no timer, and ``advance(by:ending:)`` is its sweep.
    final class ManualClock: Sendable {
        private let now = Locked(Duration.zero)

        var holdClock: HLSOrigin.HoldClock { .manual(now: { [now] in now.withLock { $0 } }) }

        /// Moves the time on and ends the holds of `origin` that are up.
        func advance(by duration: Duration, ending origin: HLSOrigin) {
            now.withLock { $0 += duration }
            origin.endExpiredHolds()
        }
    }

    /// Replies by name, as callbacks get them.
    final class Replies: Sendable {
        private let replies = Locked<[String: HLSReply]>([:])

        func record(_ key: String) -> @Sendable (HLSReply) -> Void {
            { [replies] reply in replies.withLock { $0[key] = reply } }
        }

        subscript(key: String) -> HLSReply? { replies.withLock { $0[key] } }
    }

    @Test func streamIDsAreAppsAndKeyTagsOnly() {
        #expect(HLSStreamID(app: "live", tag: Self.tag)?.path == "/hls/live/\(Self.tag)/")
        // Issue 34 D: a tag is 128 bits; the short log tag (with or without its #) is no address.
        #expect(HLSStreamID(app: "live", tag: "3f2a9c01") == nil)
        #expect(HLSStreamID(app: "live", tag: "#3f2a9c01") == nil)
        #expect(HLSStreamID(app: "live", tag: "#" + Self.tag.dropLast()) == nil)
        #expect(HLSStreamID(app: "live", tag: Self.tag + "0") == nil)
        #expect(HLSStreamID(app: "live", tag: "3F2A9C013F2A9C013F2A9C013F2A9C01") == nil)
        #expect(HLSStreamID(app: "live", tag: "super-secret-key") == nil)
        #expect(HLSStreamID(app: "../etc", tag: Self.tag) == nil)
        #expect(HLSStreamID(app: "", tag: Self.tag) == nil)
    }

    @Test func servesThePlaylistAndItsResourcesWithTheirCachePolicies() async throws {
        let (origin, _, _) = Self.origin(milliseconds: 5000)
        let playlist = await origin.playlist(Self.id, query: nil)
        #expect(playlist.status == 200)
        #expect(playlist.headers["Content-Type"] == "application/vnd.apple.mpegurl")
        #expect(playlist.headers["Cache-Control"] == "no-cache")
        #expect(playlist.headers["Access-Control-Allow-Origin"] == "*")
        let text = Self.text(playlist)
        let mapName = try #require(text.split(separator: "\"").first { $0.hasPrefix("init-") })
        let initReply = await origin.resource(Self.id, name: String(mapName))
        #expect(initReply.status == 200)
        #expect(initReply.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        #expect(initReply.headers["Content-Type"] == "video/mp4")
        #expect(Array(initReply.body[4..<8]) == Array("ftyp".utf8))
        #expect(await origin.resource(Self.id, name: "part-zz-1.0.m4s").status == 404)
        #expect(await origin.resource(Self.id, name: "../../etc/passwd").status == 404)
        let unknown = HLSStreamID(app: "live", tag: String(repeating: "0", count: HLSStreamID.tagLength))!
        #expect(await origin.playlist(unknown, query: nil).status == 404)
        #expect(await origin.playlist(Self.id, query: "_HLS_part=1").status == 400)
        #expect(await origin.playlist(Self.id, query: "_HLS_msn=99").status == 400)
        #expect(await origin.playlist(Self.id, query: "_HLS_msn=x").status == 400)
    }

    @Test func aBlockingReloadIsAnsweredTheMomentItsPartExists() async throws {
        let (origin, _, rest) = Self.origin(milliseconds: 5000)
        let position = try #require(origin.currentPlaylist(Self.id))
        let lastPart = try #require(position.split(separator: "\n").last { $0.hasPrefix("#EXT-X-PART:") })
        // "part-EPOCH-MSN.INDEX.m4s": ask for the part after the last one listed.
        let name = try #require(lastPart.split(separator: "\"").dropFirst().first)
        let numbers = name.split(separator: "-").last!.dropLast(4).split(separator: ".").map { Int($0)! }
        let query = "_HLS_msn=\(numbers[0])&_HLS_part=\(numbers[1] + 1)"
        let nextPartName = "part-\(name.split(separator: "-")[1])-\(numbers[0]).\(numbers[1] + 1).m4s"

        let replies = Replies()
        _ = origin.playlist(Self.id, query: query, reply: replies.record("playlist"))
        guard case .hold(let held) = origin.resourceLookup(directory: Self.id.directory, name: nextPartName) else {
            Issue.record("the hinted part was not held")
            return
        }
        _ = origin.hold(held, reply: replies.record("part"))
        // Both are held until the frames of the next part arrive, and answered by the append that completes it.
        #expect(origin.statistics.heldRequests == 2)
        for tag in rest {
            origin.append(tag, to: Self.id)
            if origin.statistics.heldRequests == 0 { break }
        }
        let playlist = try #require(replies["playlist"])
        let part = try #require(replies["part"])
        #expect(playlist.status == 200)
        #expect(playlist.headers["Cache-Control"] == "public, max-age=12")
        #expect(Self.text(playlist).contains(nextPartName))
        #expect(part.status == 200)
        #expect(Array(part.body[4..<8]) == Array("moof".utf8))
        #expect(origin.statistics.releasedRequests == 2)
    }

    @Test func heldRequestsEndWithTheStreamOrTheHoldTime() throws {
        let configuration = HLSOrigin.Configuration(initialHold: .milliseconds(200), maximumHold: .milliseconds(300))
        let clock = ManualClock()
        let (origin, _, _) = Self.origin(milliseconds: 5000, configuration: configuration, clock: clock)
        let replies = Replies()
        // Two segments ahead of the last: allowed, and held until the hold time runs out, not a moment before.
        _ = origin.playlist(Self.id, query: "_HLS_msn=4", reply: replies.record("late"))
        clock.advance(by: .milliseconds(299), ending: origin)
        #expect(replies["late"] == nil)
        #expect(origin.statistics.heldRequests == 1)
        clock.advance(by: .milliseconds(1), ending: origin)
        #expect(replies["late"]?.status == 503)
        #expect(origin.statistics.timedOutRequests == 1)
        #expect(origin.statistics.heldRequests == 0)

        _ = origin.playlist(Self.id, query: "_HLS_msn=4", reply: replies.record("held"))
        #expect(origin.statistics.heldRequests == 1)
        origin.publishStopped(Self.id)
        let ended = try #require(replies["held"])
        #expect(ended.status == 200)
        #expect(Self.text(ended).hasSuffix("#EXT-X-ENDLIST\n"))

        // A stream that has not made its first segment yet: the plain playlist is waited for, then 404.
        let fresh = HLSOrigin(configuration: configuration, clock: clock.holdClock)
        fresh.publishStarted(Self.id)
        _ = fresh.playlist(Self.id, query: nil, reply: replies.record("fresh"))
        clock.advance(by: .milliseconds(199), ending: fresh)
        #expect(replies["fresh"] == nil)
        clock.advance(by: .milliseconds(1), ending: fresh)
        #expect(replies["fresh"]?.status == 404)
    }

    /// One timer ends every hold, armed for the earliest: a hold that ends sooner than those already held (a stream
    /// before its first segment has the shorter initial hold) re-arms it, and each ends at its own time.
    @Test func eachHoldEndsAtItsOwnTimeWhicheverWasHeldFirst() throws {
        let configuration = HLSOrigin.Configuration(initialHold: .milliseconds(300), maximumHold: .seconds(2))
        let clock = ManualClock()
        let (origin, _, _) = Self.origin(milliseconds: 5000, configuration: configuration, clock: clock)
        let fresh = HLSStreamID(app: "live", tag: "0badcafe0badcafe0badcafe0badcafe")!
        origin.publishStarted(fresh)
        let replies = Replies()
        // Two segments ahead: held for the maximum hold (2 s); then the fresh stream's playlist, held 300 ms.
        _ = origin.playlist(Self.id, query: "_HLS_msn=4", reply: replies.record("late"))
        _ = origin.playlist(fresh, query: nil, reply: replies.record("fresh"))
        #expect(origin.statistics.heldRequests == 2)
        clock.advance(by: .milliseconds(300), ending: origin)
        #expect(replies["fresh"]?.status == 404)
        #expect(replies["late"] == nil)
        clock.advance(by: .milliseconds(1699), ending: origin)
        #expect(replies["late"] == nil)
        clock.advance(by: .milliseconds(1), ending: origin)
        #expect(replies["late"]?.status == 503)
        #expect(origin.statistics.heldRequests == 0)
        #expect(origin.statistics.timedOutRequests == 2)
    }

    @Test func aCancelledRequestLeavesNoWaiterBehind() async throws {
        let (origin, _, _) = Self.origin(milliseconds: 5000)
        let task = Task { await origin.playlist(Self.id, query: "_HLS_msn=4") }
        while origin.statistics.heldRequests < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let cancelled = ContinuousClock.now
        task.cancel()
        let reply = await task.value
        // Answered at once with what there is (not after the 5 s hold), and not counted as timed out.
        #expect(ContinuousClock.now - cancelled < .seconds(1))
        #expect(reply.status == 503)
        #expect(origin.statistics.heldRequests == 0)
        #expect(origin.statistics.timedOutRequests == 0)
    }

    @Test func callbackRequestsAreAnsweredAtOnceWhenReleasedOrWhenTheHoldEnds() async throws {
        let configuration = HLSOrigin.Configuration(maximumHold: .milliseconds(300))
        let (origin, _, rest) = Self.origin(milliseconds: 5000, configuration: configuration)
        let replies = Locked<[String: HLSReply]>([:])
        func record(_ key: String) -> @Sendable (HLSReply) -> Void {
            { reply in replies.withLock { $0[key] = reply } }
        }
        // What exists is answered at once, on the calling thread, by both forms.
        #expect(origin.playlistNow(Self.id, query: nil)?.status == 200)
        _ = origin.playlist(Self.id, query: nil, reply: record("now"))
        #expect(replies.withLock { $0["now"]?.status } == 200)
        _ = origin.playlist(Self.id, query: "_HLS_part=1", reply: record("bad"))
        #expect(replies.withLock { $0["bad"]?.status } == 400)
        #expect(origin.playlistNow(Self.id, query: "_HLS_part=1")?.status == 400)
        #expect(origin.resourceNow(directory: Self.id.directory, name: "part-zz-1.0.m4s")?.status == 404)

        // The next segment: held (nil now), released by the ingest's frames.
        let position = try #require(origin.currentPlaylist(Self.id))
        let lastSegment = position.split(separator: "\n").filter { $0.hasPrefix("#EXTINF") }.count
        let mediaSequence = Int(try #require(position.split(separator: "\n")
            .first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }).split(separator: ":")[1])!
        let next = "_HLS_msn=\(mediaSequence + lastSegment)"
        #expect(origin.playlistNow(Self.id, query: next) == nil)
        _ = origin.playlist(Self.id, query: next, reply: record("released"))
        // A cancelled hold is never answered and leaves no waiter.
        let cancel = origin.playlist(Self.id, query: next, reply: record("cancelled"))
        #expect(origin.statistics.heldRequests == 2)
        cancel()
        #expect(origin.statistics.heldRequests == 1)
        for tag in rest where origin.statistics.heldRequests > 0 { origin.append(tag, to: Self.id) }
        #expect(replies.withLock { $0["released"]?.status } == 200)
        #expect(replies.withLock { $0["cancelled"] } == nil)

        // Two segments ahead: held until the hold time ends, then 503 (counted).
        let far = "_HLS_msn=\(mediaSequence + lastSegment + 2)"
        _ = origin.playlist(Self.id, query: far, reply: record("late"))
        let started = ContinuousClock.now
        while replies.withLock({ $0["late"] }) == nil && ContinuousClock.now - started < .seconds(5) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(replies.withLock { $0["late"]?.status } == 503)
        #expect(origin.statistics.timedOutRequests == 1)
        #expect(origin.statistics.heldRequests == 0)
    }

    @Test func aNewPublishOfTheSameKeyStartsAFreshPlaylist() async throws {
        let (origin, stream, _) = Self.origin(milliseconds: 5000)
        let first = try #require(origin.currentPlaylist(Self.id))
        origin.publishStopped(Self.id)
        origin.publishStarted(Self.id)
        for tag in stream.headers + stream.media(milliseconds: 2100) { origin.append(tag, to: Self.id) }
        let second = try #require(origin.currentPlaylist(Self.id))
        // Another epoch in every name: nothing cached from the first publish is reused.
        let epoch = { (text: String) in text.split(separator: "\"").first { $0.hasPrefix("init-") } }
        #expect(epoch(first) != epoch(second))
        #expect(second.contains("#EXT-X-MEDIA-SEQUENCE:0"))
    }

    /// Issue 33's per-show LL-HLS requests: every lookup of a stream counts, found or not, and a new publish to the
    /// same address goes on counting (a counter that went back would read as a restart).
    @Test func countsEachStreamsRequestsAcrossItsPublishes() async throws {
        let (origin, stream, _) = Self.origin(milliseconds: 5000)
        #expect(origin.requestCounts == [Self.id: 0])
        let playlist = await origin.playlist(Self.id, query: nil)
        let mapName = try #require(Self.text(playlist).split(separator: "\"").first { $0.hasPrefix("init-") })
        #expect(await origin.resource(Self.id, name: String(mapName)).status == 200)
        #expect(origin.multivariant(Self.id, uri: "index.m3u8").status == 200)
        let unknown = HLSStreamID(app: "live", tag: String(repeating: "0", count: HLSStreamID.tagLength))!
        #expect(await origin.playlist(unknown, query: nil).status == 404)
        #expect(origin.requestCounts == [Self.id: 3], "the unknown stream has no count")
        origin.publishStopped(Self.id)
        origin.publishStarted(Self.id)
        for tag in stream.headers { origin.append(tag, to: Self.id) }
        _ = origin.multivariant(Self.id, uri: "index.m3u8")
        #expect(origin.requestCounts == [Self.id: 4])
    }

    /// The `mfhd` sequence number of a part's fragment.
    static func fragmentSequence(_ origin: HLSOrigin, _ name: String) async throws -> UInt64 {
        let reply = await origin.resource(Self.id, name: name)
        #expect(reply.status == 200, "\(name)")
        return try #require(try Box.parse(reply.body).first?.find("mfhd")?.uint(at: 4, width: 4))
    }

    /// Issue 34 item 9: the fragments' sequence numbers increase over the whole life of an address, across a new
    /// publish to it (as a show's main picture restarts when its last tile comes back), not only within a publish.
    @Test func fragmentSequenceNumbersGoOnAcrossPublishesOfOneAddress() async throws {
        let (origin, stream, _) = Self.origin(milliseconds: 5000)
        origin.publishStopped(Self.id)
        let first = try #require(origin.currentPlaylist(Self.id))
        let lastPart = try #require(first.split(separator: "\"").last { $0.hasPrefix("part-") })
        let last = try await Self.fragmentSequence(origin, String(lastPart))
        origin.publishStarted(Self.id)
        for tag in stream.headers + stream.media(milliseconds: 2100) { origin.append(tag, to: Self.id) }
        let second = try #require(origin.currentPlaylist(Self.id))
        let firstPart = try #require(second.split(separator: "\"").first { $0.hasPrefix("part-") })
        #expect(try await Self.fragmentSequence(origin, String(firstPart)) == last + 1)
    }
}
