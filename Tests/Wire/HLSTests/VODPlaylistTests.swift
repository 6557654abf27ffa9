import HLS
import MP4
import Testing

@Suite struct VODPlaylistTests {
    @Test func listsTheInitSegmentAndEachFragmentAsByteRangesOfOneFile() {
        let index = FragmentIndex(initSegment: 0..<700, timingTrackID: 1, timescale: 90_000, hasVideo: true,
                                  fragments: [
                                      .init(range: 700..<50_700, decodeTime: 0, duration: 180_000,
                                            startsWithSyncSample: true),
                                      .init(range: 50_700..<60_000, decodeTime: 180_000, duration: 225_000,
                                            startsWithSyncSample: true),
                                  ])
        #expect(VODPlaylist.make(index, uri: "r1.mp4?access_token=a.b") == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:3
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="r1.mp4?access_token=a.b",BYTERANGE="700@0"
            #EXTINF:2.00000,
            #EXT-X-BYTERANGE:50000@700
            r1.mp4?access_token=a.b
            #EXTINF:2.50000,
            #EXT-X-BYTERANGE:9300@50700
            r1.mp4?access_token=a.b
            #EXT-X-ENDLIST

            """)
    }

    /// A fragment cut without a keyframe (past 10 s or 8 MiB) does not decode alone: no INDEPENDENT-SEGMENTS.
    @Test func saysNothingOfIndependenceWhenAFragmentStartsWithoutAKeyframe() {
        let index = FragmentIndex(initSegment: 0..<10, timingTrackID: 1, timescale: 1000, hasVideo: true,
                                  fragments: [.init(range: 10..<20, decodeTime: 0, duration: 10_400,
                                                    startsWithSyncSample: false)])
        let text = VODPlaylist.make(index, uri: "a.mp4")
        #expect(!text.contains("INDEPENDENT"))
        #expect(text.contains("#EXT-X-TARGETDURATION:10\n") && text.contains("#EXTINF:10.40000,\n"))
    }
}
