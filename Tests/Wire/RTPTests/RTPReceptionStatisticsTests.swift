import RTP
import Testing

@Suite struct RTPReceptionStatisticsTests {
    @Test func lossSinceTheLastReportAndInAllAcrossTheWrap() {
        var statistics = RTPReceptionStatistics(ssrc: 9, clockRate: 90_000)
        #expect(!statistics.hasReceived)
        // 65500 ... 65535, 0 ... 62: 99 sequence numbers, every tenth missing (the 100th, 63, comes later or not).
        for step in 0..<100 where step % 10 != 9 {
            statistics.observe(sequence: UInt16(truncatingIfNeeded: 65_500 + step), timestamp: 0, arrival: .zero)
        }
        let first = statistics.report(now: .zero)
        #expect(first.ssrc == 9 && first.highestSequence == 65_536 + 62, "one cycle counted in the top bits")
        // 9 of 99 expected, RFC 3550 A.3's fraction in 1/256.
        #expect(first.cumulativeLost == 9 && first.fractionLost == UInt8(9 * 256 / 99), "\(first)")
        // The next interval: 50 more; 63 never came, 1 of 51 expected.
        for step in 100..<150 {
            statistics.observe(sequence: UInt16(truncatingIfNeeded: 65_500 + step), timestamp: 0, arrival: .zero)
        }
        let second = statistics.report(now: .zero)
        #expect(second.fractionLost == UInt8(256 / 51) && second.cumulativeLost == 10, "\(second)")
    }

    @Test func aResentPacketMakesUpItsLoss() {
        var statistics = RTPReceptionStatistics(ssrc: 1, clockRate: 90_000)
        for sequence: UInt16 in [1, 2, 4, 5] { statistics.observe(sequence: sequence, timestamp: 0, arrival: .zero) }
        statistics.observe(sequence: 3, timestamp: 0, arrival: .zero)  // the NACK's answer
        let block = statistics.report(now: .zero)
        #expect(block.cumulativeLost == 0 && block.fractionLost == 0 && block.highestSequence == 5, "\(block)")
    }

    @Test func packetsOnTimeHaveNoJitterAndLateOnesSome() {
        var steady = RTPReceptionStatistics(ssrc: 1, clockRate: 90_000)
        for frame in 0..<30 {
            steady.observe(sequence: UInt16(frame), timestamp: UInt32(frame * 3000),
                           arrival: .nanoseconds(frame * 1_000_000_000 / 30))
        }
        #expect(steady.report(now: .seconds(1)).jitter <= 1, "a frame every 1/30 s, timestamps 3000 apart")
        var uneven = RTPReceptionStatistics(ssrc: 1, clockRate: 90_000)
        for frame in 0..<30 {
            // Every other frame 10 ms late: transit differs by 900 units each time; A.8 converges towards it.
            uneven.observe(sequence: UInt16(frame), timestamp: UInt32(frame * 3000),
                           arrival: .nanoseconds(frame * 1_000_000_000 / 30) + .milliseconds((frame % 2) * 10))
        }
        let jitter = uneven.report(now: .seconds(1)).jitter
        #expect(jitter > 500 && jitter < 900, "\(jitter)")
    }

    @Test func theLastSenderReportAndTheDelaySinceGoBack() {
        var statistics = RTPReceptionStatistics(ssrc: 1, clockRate: 48_000)
        statistics.observe(sequence: 7, timestamp: 0, arrival: .zero)
        #expect(statistics.report(now: .zero).lastSenderReport == 0, "none yet")
        statistics.senderReport(ntpTimestamp: 0x0001_2345_6789_ABCD, arrival: .seconds(2))
        let block = statistics.report(now: .milliseconds(2500))
        #expect(block.lastSenderReport == 0x2345_6789 && block.delaySinceLastSenderReport == 32_768, "\(block)")
    }
}
