import Foundation
import Testing
import TestSupport
@testable import HLS

/// Every version of the playlist a packager writes, checked by the m3u8-based checker (`hls_checker.py`).
@Suite(.serialized, .startsPeers) struct PlaylistCheckerTests {
    /// Packages `stream` for `seconds`, a discontinuity to a second publisher half-way, and the end; writes every
    /// playlist version to `directory`.
    static func writeVersions(to directory: TemporaryDirectory) throws -> LLHLSPackager {
        var packager = LLHLSPackager(epoch: "k7")
        var written = 0
        func snapshot(_ events: [HLSEvent]) throws {
            guard !events.isEmpty, let playlist = packager.playlist else { return }
            written += 1
            try playlist.write(toFile: directory.file(DecimalText.padded(Int64(written), width: 6) + ".m3u8"),
                               atomically: true, encoding: .utf8)
        }
        let first = SyntheticStream()
        for tag in first.headers + first.media(milliseconds: 9_000) {
            try snapshot(packager.append(tag, wallClock: 1_800_000_000_000 + Int64(tag.timestamp)))
        }
        try snapshot(packager.beginDiscontinuity())
        var second = SyntheticStream()
        second.avc = SyntheticStream.otherAVCC
        second.startMilliseconds = 90_000
        for tag in second.headers + second.media(milliseconds: 11_000) {
            try snapshot(packager.append(tag, wallClock: 1_800_000_009_000 + Int64(tag.timestamp - 90_000)))
        }
        try snapshot(packager.finish())
        return packager
    }

    @Test func everyPlaylistVersionPassesTheChecker() throws {
        let directory = try TemporaryDirectory("hls-checker")
        let packager = try Self.writeVersions(to: directory)
        let report = try LLHLSChecker.check(directory: directory.path)
        #expect(report.errors.isEmpty, "\(report)")
        #expect(report.playlists > 50)
        #expect(report.segments == packager.segments.last.map { $0.msn + 1 })
        #expect(report.parts > 40)
        #expect(report.ended)
    }

    /// A publisher that drops frames (an encoder behind, one frame here, four there) still gets playlists whose
    /// parts tile their segments: none short in the middle of a segment, their sum the segment's EXTINF, the
    /// program date-times following the durations.
    @Test func framesThePublisherDropsLeaveNoShortPartsOrHoles() throws {
        let directory = try TemporaryDirectory("hls-drops")
        var packager = LLHLSPackager(epoch: "d1")
        let stream = SyntheticStream()
        var written = 0
        var videoFrame = 0
        for tag in stream.headers + stream.media(milliseconds: 20_000) {
            if tag.type == .video && !tag.isSequenceHeader {
                videoFrame += 1
                // Frames 10-14 (right after a part closed), 17, 41-44, 95, 130-131... of each 150 never arrive
                // (keyframes always do).
                let place = videoFrame % 150
                if !tag.isVideoKeyFrame && ((10...14).contains(place) || place == 17 || (41...44).contains(place)
                                            || place == 95 || (130...131).contains(place)) { continue }
            }
            let events = packager.append(tag, wallClock: 1_800_000_000_000 + Int64(tag.timestamp))
            guard !events.isEmpty, let playlist = packager.playlist else { continue }
            written += 1
            try playlist.write(toFile: directory.file(DecimalText.padded(Int64(written), width: 6) + ".m3u8"),
                               atomically: true, encoding: .utf8)
        }
        let report = try LLHLSChecker.check(directory: directory.path)
        #expect(report.errors.isEmpty, "\(report)")
        #expect(report.playlists > 50)
        #expect(packager.statistics.filledHoles > 0)
    }

    /// The checker must catch what it is there for: a broken playlist fails it.
    @Test(arguments: [
        ("DURATION=0.33300,URI=\"part-k7-8.2.m4s\"", "DURATION=0.40000,URI=\"part-k7-8.2.m4s\"",
         "more than PART-TARGET"),
        ("URI=\"part-k7-8.0.m4s\",INDEPENDENT=YES", "URI=\"part-k7-8.0.m4s\"", "does not start with an independent"),
        ("#EXTINF:2.00000,\nseg-k7-8.m4s", "#EXTINF:2.60000,\nseg-k7-8.m4s", "more than the target"),
        ("#EXT-X-PART-INF:PART-TARGET=0.334", "#EXT-X-PART-INF:PART-TARGET=0.5", "under three PART-TARGETs"),
        ("#EXT-X-ENDLIST", "#EXT-X-ENDLIST\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-k7-9.0.m4s\"",
         "an ended playlist has a preload hint"),
        ("seg-k7-8.m4s", "seg-k7-9.m4s", "segment 8 has URI seg-k7-9.m4s"),
    ])
    func aBrokenPlaylistFailsIt(original: String, broken: String, complaint: String) throws {
        let source = try TemporaryDirectory("hls-checker-source")
        _ = try Self.writeVersions(to: source)
        let names = try FileManager.default.contentsOfDirectory(atPath: source.path).sorted()
        let last = try String(contentsOfFile: source.file(try #require(names.last)), encoding: .utf8)
        try #require(last.contains(original), "the vector must match the playlist")
        let directory = try TemporaryDirectory("hls-checker-broken")
        try last.replacingOccurrences(of: original, with: broken)
            .write(toFile: directory.file("000001.m3u8"), atomically: true, encoding: .utf8)
        let report = try LLHLSChecker.check(directory: directory.path)
        #expect(report.errors.contains { $0.contains(complaint) }, "\(report)")
    }
}
