import Testing

@testable import WebRTCServer

struct OpusRTPTimelineTests {
    @Test func consecutivePacketsNeedNothingConcealed() {
        var timeline = OpusRTPTimeline()
        for index in 0..<5 {
            #expect(timeline.place(timestamp: 1000 + UInt32(index) * 960) == .decode(conceal: 0, skip: 0))
            timeline.advance(by: 960)
        }
        #expect(timeline.samples == 4800 && timeline.dropped == 0 && timeline.skipped == 0)
    }

    @Test func aLostPacketIsConcealedAndADuplicateOrLateOneDropped() {
        var timeline = OpusRTPTimeline()
        #expect(timeline.place(timestamp: 0) == .decode(conceal: 0, skip: 0))
        timeline.advance(by: 960)
        // 960 is lost: 1920 comes with 960 samples to conceal.
        #expect(timeline.place(timestamp: 1920) == .decode(conceal: 960, skip: 0))
        timeline.advance(by: 960)
        #expect(timeline.samples == 2880)
        #expect(timeline.place(timestamp: 960) == .drop)  // the lost one, late
        #expect(timeline.place(timestamp: 1920) == .drop)  // a duplicate
        #expect(timeline.dropped == 2)
        #expect(timeline.place(timestamp: 2880) == .decode(conceal: 0, skip: 0))
    }

    @Test func theTimestampWrapsAndALongGapIsSkipped() {
        var timeline = OpusRTPTimeline()
        #expect(timeline.place(timestamp: UInt32.max - 479) == .decode(conceal: 0, skip: 0))
        timeline.advance(by: 960)
        #expect(timeline.place(timestamp: 480) == .decode(conceal: 0, skip: 0))  // wrapped: 2^32 - 480 + 960
        timeline.advance(by: 960)
        // 1 s concealed at most; a 3 s gap is skipped whole.
        #expect(timeline.place(timestamp: 1440 + 48000) == .decode(conceal: 48000, skip: 0))
        timeline.advance(by: 960)
        #expect(timeline.place(timestamp: 1440 + 48000 + 960 + 144_000) == .decode(conceal: 0, skip: 144_000))
        timeline.advance(by: 960)
        #expect(timeline.samples == 960 * 4 + 48000 + 144_000 && timeline.skipped == 144_000)
    }

    @Test func samplesBecomeMilliseconds() {
        #expect(OpusRTPTimeline.milliseconds(atSample: 0) == 0)
        #expect(OpusRTPTimeline.milliseconds(atSample: 1024) == 21)
        #expect(OpusRTPTimeline.milliseconds(atSample: 48000) == 1000)
        #expect(OpusRTPTimeline.milliseconds(atSample: -1600) == -34)
    }
}
