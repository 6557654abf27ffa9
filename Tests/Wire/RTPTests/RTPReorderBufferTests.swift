import RTP
import Testing

@Suite struct RTPReorderBufferTests {
    private func packet(_ sequence: UInt16) -> RTPPacket {
        RTPPacket(payloadType: 96, marker: false, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000,
                  ssrc: 7, payload: [UInt8(truncatingIfNeeded: sequence)])
    }

    private func sequences(_ packets: [RTPPacket]) -> [UInt16] { packets.map(\.sequenceNumber) }

    @Test func inOrderPacketsPassAtOnce() {
        var buffer = RTPReorderBuffer()
        for sequence: UInt16 in [65534, 65535, 0, 1] {
            #expect(sequences(buffer.push(packet(sequence), now: .zero)) == [sequence], "across the wrap")
        }
        #expect(buffer.heldCount == 0 && buffer.skipped == 0 && buffer.late == 0 && buffer.filled == 0)
    }

    @Test func aRetransmissionFillsTheGapAndTheHeldPacketsFollowInOrder() {
        var buffer = RTPReorderBuffer(maximumDelay: .milliseconds(200))
        #expect(sequences(buffer.push(packet(10), now: .zero)) == [10])
        #expect(sequences(buffer.push(packet(12), now: .milliseconds(1))) == [], "11 is missing: 12 waits")
        #expect(sequences(buffer.push(packet(14), now: .milliseconds(2))) == [], "13 too")
        #expect(buffer.heldCount == 2)
        #expect(sequences(buffer.push(packet(11), now: .milliseconds(40))) == [11, 12])
        #expect(sequences(buffer.push(packet(13), now: .milliseconds(80))) == [13, 14])
        #expect(buffer.filled == 2 && buffer.skipped == 0 && buffer.heldCount == 0)
        #expect(sequences(buffer.push(packet(11), now: .milliseconds(90))) == [], "a second copy is late")
        #expect(buffer.late == 1)
    }

    @Test func aGapThatDoesNotFillInTimeIsGivenUp() {
        var buffer = RTPReorderBuffer(maximumDelay: .milliseconds(200))
        _ = buffer.push(packet(1), now: .zero)
        #expect(sequences(buffer.push(packet(3), now: .milliseconds(10))) == [])
        #expect(sequences(buffer.push(packet(4), now: .milliseconds(209))) == [], "3 has waited 199 ms")
        #expect(sequences(buffer.push(packet(5), now: .milliseconds(210))) == [3, 4, 5], "2 is given up at 200 ms")
        #expect(buffer.skipped == 1 && buffer.heldCount == 0)
        #expect(sequences(buffer.push(packet(2), now: .milliseconds(220))) == [], "it came too late")
        #expect(buffer.late == 1)
    }

    @Test func aSecondGapWaitsFromWhenItsFirstPacketCame() {
        var buffer = RTPReorderBuffer(maximumDelay: .milliseconds(100))
        _ = buffer.push(packet(1), now: .zero)
        _ = buffer.push(packet(3), now: .zero)  // 2 missing
        _ = buffer.push(packet(6), now: .milliseconds(50))  // 4, 5 missing
        #expect(sequences(buffer.push(packet(7), now: .milliseconds(100))) == [3], "2 given up; 4 and 5 not yet")
        #expect(sequences(buffer.push(packet(8), now: .milliseconds(150))) == [6, 7, 8])
        #expect(buffer.skipped == 3)
    }

    @Test func aPacketTooFarPastTheGapGivesItUp() {
        var buffer = RTPReorderBuffer(maximumDelay: .seconds(10), maximumHeld: 3)
        _ = buffer.push(packet(1), now: .zero)
        for sequence: UInt16 in 3...5 { #expect(buffer.push(packet(sequence), now: .zero).isEmpty) }
        #expect(sequences(buffer.push(packet(6), now: .zero)) == [3, 4, 5, 6], "6 is four past the gap at 2")
        #expect(buffer.skipped == 1 && buffer.heldCount == 0)
    }

    @Test func aJumpEitherWayStartsAfresh() {
        var buffer = RTPReorderBuffer(maximumHeld: 8)
        _ = buffer.push(packet(100), now: .zero)
        _ = buffer.push(packet(102), now: .zero)
        #expect(sequences(buffer.push(packet(5000), now: .zero)) == [102, 5000], "a new origin: 102 passes first")
        #expect(sequences(buffer.push(packet(5001), now: .zero)) == [5001])
        #expect(sequences(buffer.push(packet(4995), now: .zero)) == [], "a little behind: late")
        #expect(sequences(buffer.push(packet(1000), now: .zero)) == [1000], "far behind: afresh")
        #expect(buffer.late == 1)
    }
}
