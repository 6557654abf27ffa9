import Testing
@testable import RTP

struct RTPStreamTests {
    @Test func numbersPacketsAndAnswersNACKsFromItsHistory() {
        var stream = RTPStream(ssrc: 7, payloadType: 102, clockRate: 90000, initialSequence: 65534,
                               timestampOffset: 1000, historyCapacity: 4)
        let first = stream.packets([[1], [2], [3]], timestamp: stream.timestamp(milliseconds: 0),
                                   mediaTimeMilliseconds: 0, markLast: true)
        #expect(first.map(\.sequenceNumber) == [65534, 65535, 0])
        #expect(first.map(\.marker) == [false, false, true])
        #expect(first.allSatisfy { $0.timestamp == 1000 })
        let second = stream.packets([[4], [5]], timestamp: stream.timestamp(milliseconds: 33),
                                    mediaTimeMilliseconds: 33, markLast: true)
        #expect(second.first?.timestamp == UInt32(1000 + 2970))
        // The history holds the last four: 65534 is gone.
        #expect(stream.retransmissions(for: [65535, 2, 65534]).map(\.payload) == [[2], [5]])
        #expect(stream.retransmitted == 2)
        #expect(stream.missedRetransmissions == 1)
        #expect(stream.packetCount == 5)
        #expect(stream.octetCount == 5)
    }

    @Test func senderReportCarriesTheTimestampOfNow() {
        var stream = RTPStream(ssrc: 7, payloadType: 111, clockRate: 48000, initialSequence: 0, timestampOffset: 0)
        _ = stream.packets([[0xFC]], timestamp: stream.timestamp(milliseconds: 1000), mediaTimeMilliseconds: 1000,
                           markLast: false)
        guard case .senderReport(let ssrc, _, let rtp, let packets, let octets, _) =
                stream.senderReport(ntpTime: 1, mediaTimeMilliseconds: 1500) else {
            Issue.record("not a sender report")
            return
        }
        #expect(ssrc == 7)
        #expect(rtp == 72000)  // 1.5 s at 48 kHz
        #expect(packets == 1)
        #expect(octets == 1)
    }
}

struct PacerTests {
    @Test func spreadsABurstAtTheRateAndSendsAudioFirst() {
        // 1 Mbit/s target: 2.5 Mbit/s pacing = 312 500 bytes/s.
        var pacer = Pacer(bitsPerSecond: 1_000_000, burstBytes: 5000)
        for index in 0..<100 {
            pacer.enqueue([UInt8](repeating: UInt8(index), count: 1000), priority: .normal, now: .zero)
        }
        pacer.enqueue([0xAA], priority: .high, now: .zero)
        let first = pacer.dequeue(now: .zero)
        #expect(first.first == [0xAA])
        #expect(first.count == 6)  // the burst: 5000 bytes of budget, the last packet overdraws it
        var sent = first.count - 1
        var now = Duration.zero
        while let next = pacer.nextSendTime(now: now), next <= .milliseconds(100) {
            now = max(next, now + .milliseconds(5))
            sent += pacer.dequeue(now: now).count
        }
        // 100 ms at 312.5 kB/s is ~31 packets of 1000 bytes, plus the burst.
        #expect((33...40).contains(sent))
        #expect(pacer.queuedPackets == 100 - sent)
    }

    @Test func dropsWhatWaitedTooLong() {
        var pacer = Pacer(bitsPerSecond: 8_000, burstBytes: 1500, maximumQueueDelay: .seconds(1))
        for _ in 0..<50 { pacer.enqueue([UInt8](repeating: 0, count: 1200), priority: .normal, now: .zero) }
        _ = pacer.dequeue(now: .zero)
        _ = pacer.dequeue(now: .milliseconds(1500))
        #expect(pacer.dropped > 40)
        #expect(pacer.queuedPackets == 0)
    }
}

struct LossBasedBitrateTests {
    @Test func fallsWithLossHoldsInBetweenAndRecovers() {
        var estimate = LossBasedBitrate(maximumKbps: 2500)
        #expect(estimate.report(lossRatio: 0.2) == 2000)  // 20 % less: the loss fraction
        #expect(estimate.report(lossRatio: 0.015) == 2000)  // between 1 % and 2 %: hold
        #expect(estimate.report(lossRatio: 0.05) == 1900)
        for _ in 0..<20 { estimate.report(lossRatio: 0.5) }
        #expect(estimate.estimateKbps == 500)  // the floor
        for _ in 0..<40 { estimate.report(lossRatio: 0) }
        #expect(estimate.estimateKbps == 2500)  // the ceiling
        estimate.receiverEstimate(bitsPerSecond: 800_000)
        #expect(estimate.estimateKbps == 800)
        #expect(estimate.report(lossRatio: 0) == 800)
    }
}
