import RTP
import Testing

@Suite struct RTPLossTrackerTests {
    @Test func aGapIsAskedForAtOnceThenAgainThenGivenUp() {
        var tracker = RTPLossTracker(retryInterval: .milliseconds(40), maximumRequests: 3)
        tracker.observe(65534)
        tracker.observe(65535)
        tracker.observe(2)  // 0 and 1 are missing, across the wrap
        #expect(tracker.due(now: .zero) == [0, 1])
        #expect(tracker.due(now: .milliseconds(39)) == [], "not again before the retry interval")
        #expect(tracker.due(now: .milliseconds(40)) == [0, 1])
        tracker.observe(1)  // a retransmission
        #expect(tracker.recovered == 1 && tracker.missingCount == 1)
        #expect(tracker.due(now: .milliseconds(80)) == [0])
        #expect(tracker.due(now: .milliseconds(120)) == [], "asked for three times: given up")
        #expect(tracker.abandoned == 1 && tracker.missingCount == 0)
    }

    @Test func aReorderedPacketIsRecoveredAndADuplicateIsNot() {
        var tracker = RTPLossTracker()
        tracker.observe(10)
        tracker.observe(12)
        tracker.observe(11)
        tracker.observe(11)
        #expect(tracker.recovered == 1 && tracker.missingCount == 0 && tracker.due(now: .zero) == [])
    }

    @Test func aJumpPastTheBoundStartsAfreshAndTheOldestGoFirst() {
        var tracker = RTPLossTracker(maximumMissing: 4)
        tracker.observe(100)
        tracker.observe(104)  // 101...103 missing
        tracker.observe(107)  // 105, 106 too: five, past the bound of four, so 101 goes
        #expect(tracker.missingCount == 4 && tracker.abandoned == 1)
        #expect(tracker.due(now: .zero) == [102, 103, 105, 106])
        tracker.observe(2000)  // a jump of 1892: a new origin, not 1891 losses
        #expect(tracker.missingCount == 0 && tracker.abandoned == 5)
    }
}
