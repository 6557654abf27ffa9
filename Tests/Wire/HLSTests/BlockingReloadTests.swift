import Testing
@testable import HLS

@Suite struct BlockingReloadTests {
    /// Segments 10 and 11 complete (4 and 6 parts), segment 12 open with 2 parts; PART-TARGET 0.334 s gives an
    /// Advance Part Limit of 9.
    static let live = PlaylistPosition(lastCompleteMSN: 11, openMSN: 12, openPartCount: 2, isEnded: false,
                                       partCounts: [10: 4, 11: 6], advancePartLimit: 9)

    @Test(arguments: [
        ("", BlockingReload.Directives()),
        ("_HLS_msn=12", BlockingReload.Directives(msn: 12)),
        ("_HLS_msn=12&_HLS_part=3", BlockingReload.Directives(msn: 12, part: 3)),
        ("x=1&_HLS_part=0&_HLS_msn=0&_HLS_skip=YES", BlockingReload.Directives(msn: 0, part: 0)),
        // A query with characters other than ASCII is read character by character, to the same directives.
        ("caf\u{E9}=1&_HLS_msn=12&_HLS_part=3", BlockingReload.Directives(msn: 12, part: 3)),
    ])
    func readsTheDirectivesOfAQuery(query: String, directives: BlockingReload.Directives) throws {
        #expect(try BlockingReload.Directives(query: query) == directives)
    }

    @Test(arguments: ["_HLS_msn=", "_HLS_msn=-1", "_HLS_msn=1e3", "_HLS_msn=9999999999999", "_HLS_part=x",
                      "_HLS_msn=1&_HLS_msn=2", "_HLS_msn=%31", "_HLS_msn=\u{661}\u{662}", "x=\u{E9}&_HLS_part=",
                      "\u{E9}&_HLS_msn=1&_HLS_msn=2"])
    func refusesDirectivesThatAreNotDecimalIntegers(query: String) {
        #expect(throws: HLSRequestError.self) { try BlockingReload.Directives(query: query) }
    }

    @Test(arguments: [
        // A plain request: the playlist as it is.
        (nil, nil, BlockingReload.Decision.ready),
        // A part already listed, or one of an older segment (the whole playlist is sent, §6.2.5.2).
        (12, 1, .ready), (11, 0, .ready), (3, 0, .ready),
        // The next part of the open segment, and parts up to the Advance Part Limit: held.
        (12, 2, .hold), (12, 10, .hold),
        // A part index past a complete segment's last is part 0 of the next, which exists.
        (11, 6, .ready), (11, 40, .ready),
        // Whole segments: complete ones are there; the open one and the next two are waited for.
        (11, nil, .ready), (12, nil, .hold), (13, nil, .hold), (14, 0, .hold),
    ] as [(Int?, Int?, BlockingReload.Decision)])
    func decidesWhenToAnswer(msn: Int?, part: Int?, decision: BlockingReload.Decision) {
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: msn, part: part), position: Self.live) == decision)
    }

    @Test func refusesWhatItCannotEverAnswer() {
        let tooFar = BlockingReload.decide(BlockingReload.Directives(msn: 15), position: Self.live)
        #expect(tooFar == .badRequest("_HLS_msn=15 is more than two past the last segment (12)"))
        let partAlone = BlockingReload.decide(BlockingReload.Directives(part: 1), position: Self.live)
        #expect(partAlone == .badRequest("_HLS_part needs _HLS_msn (RFC 8216bis §6.2.5.2)"))
        let pastLimit = BlockingReload.decide(BlockingReload.Directives(msn: 12, part: 11), position: Self.live)
        #expect(pastLimit == .badRequest("_HLS_part=11 is more than 9 parts past the last (1)"))
    }

    /// Issue 34 item 7: just after a segment closes, the next one is open with no part yet and only its preload hint
    /// is listed, so the last segment of the playlist is the closed one: three past it is refused at once (it was
    /// held for three target durations and answered 200).
    @Test func theLastSegmentIsTheClosedOneUntilTheNextHasAPart() {
        let justClosed = PlaylistPosition(lastCompleteMSN: 11, openMSN: 12, openPartCount: 0, isEnded: false,
                                          partCounts: [10: 4, 11: 6], advancePartLimit: 9)
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 14), position: justClosed)
                == .badRequest("_HLS_msn=14 is more than two past the last segment (11)"))
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 13, part: 0), position: justClosed) == .hold)
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 12, part: 0), position: justClosed) == .hold)
        let first = PlaylistPosition(lastCompleteMSN: nil, openMSN: 0, openPartCount: 0, isEnded: false)
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 2), position: first)
                == .badRequest("_HLS_msn=2 is more than two past the last segment (-1)"))
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 1), position: first) == .hold)
    }

    @Test func anEndedPlaylistAnswersAtOnceAndAMissingOneIsWaitedFor() {
        var ended = Self.live
        ended.isEnded = true
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 14, part: 3), position: ended) == .ready)
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 0), position: nil) == .hold)
        #expect(BlockingReload.decide(BlockingReload.Directives(), position: nil) == .hold)
        #expect(BlockingReload.decide(BlockingReload.Directives(part: 0), position: nil)
                == .badRequest("_HLS_part needs _HLS_msn (RFC 8216bis §6.2.5.2)"))
    }

    @Test func theAdvancePartLimitFollowsThePartTarget() {
        #expect(HLSConfiguration(partTargetMilliseconds: 334).advancePartLimit == 9)
        #expect(HLSConfiguration(partTargetMilliseconds: 500).advancePartLimit == 6)
        #expect(HLSConfiguration(partTargetMilliseconds: 1500).advancePartLimit == 3)
    }
}
