import Testing
import TestSupport
@testable import HLS

@Suite struct PlainPlaylistTests {
    @Test func dropsTheLowLatencyTagsAndTheOpenSegment() {
        var packager = LLHLSPackager(epoch: "p1")
        let stream = SyntheticStream()
        packager.append(stream.headers)
        packager.append(stream.media(milliseconds: 5000), wallClock: 1_800_000_000_000)
        let live = PlainPlaylist.strip(packager.playlist ?? "")
        #expect(live == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-MAP:URI="init-p1-0.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:00.000Z
            #EXTINF:2.00000,
            seg-p1-0.m4s
            #EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:02.000Z
            #EXTINF:2.00000,
            seg-p1-1.m4s

            """)
        _ = packager.finish()
        let ended = PlainPlaylist.strip(packager.playlist ?? "")
        // The last segment ends with the last video frame (4966.7 ms, lasting to 5000.4 ms).
        #expect(ended.hasSuffix("#EXTINF:1.00038,\nseg-p1-2.m4s\n#EXT-X-ENDLIST\n"), "\(ended)")
        #expect(!ended.contains("#EXT-X-PART"))
    }
}
