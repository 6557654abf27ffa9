import Testing
@testable import RTP

struct RTPRewriterTests {
    static func packet(sequence: UInt16, timestamp: UInt32, ssrc: UInt32, payloadType: UInt8 = 102,
                       marker: Bool = false) -> [UInt8] {
        RTPPacket(payloadType: payloadType, marker: marker, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
                  payload: [0x41, 0x9a]).encoded
    }

    static func decode(_ bytes: [UInt8]?) throws -> RTPPacket {
        try RTPPacket(decoding: try #require(bytes))
    }

    @Test func rewritesSSRCPayloadTypeSequenceAndTimestamp() throws {
        var rewriter = RTPRewriter(ssrc: 0xCAFE, payloadType: 96, clockRate: 90000, firstSequence: 1000,
                                   firstTimestamp: 5000)
        let first = try Self.decode(rewriter.rewrite(Self.packet(sequence: 65535, timestamp: 4_294_967_000,
                                                                 ssrc: 7, marker: true), now: .zero))
        #expect(first == RTPPacket(payloadType: 96, marker: true, sequenceNumber: 1000, timestamp: 5000, ssrc: 0xCAFE,
                                   payload: [0x41, 0x9a]))
        // Across the source's wraparound: distances kept.
        let second = try Self.decode(rewriter.rewrite(Self.packet(sequence: 0, timestamp: 2704, ssrc: 7),
                                                      now: .milliseconds(33)))
        #expect(second.sequenceNumber == 1001)
        #expect(second.timestamp == 5000 + 3000)
        #expect(second.payloadType == 96 && !second.marker)
        #expect(rewriter.packets == 2)
        #expect(rewriter.rewrite([0x80, 0x60], now: .zero) == nil)
    }

    @Test func staysContinuousAcrossAPublishersReconnect() throws {
        var rewriter = RTPRewriter(ssrc: 9, payloadType: 96, clockRate: 90000, firstSequence: 10, firstTimestamp: 0)
        for index in 0..<3 {
            _ = rewriter.rewrite(Self.packet(sequence: 500 + UInt16(index), timestamp: 3000 * UInt32(index), ssrc: 1),
                                 now: .milliseconds(33 * index))
        }
        // The same key publishes again 500 ms later: a new SSRC and new origins.
        let next = try Self.decode(rewriter.rewrite(Self.packet(sequence: 40000, timestamp: 123_456, ssrc: 2),
                                                    now: .milliseconds(66 + 500)))
        #expect(next.sequenceNumber == 13)
        #expect(next.timestamp == 6000 + 45000)
        let after = try Self.decode(rewriter.rewrite(Self.packet(sequence: 40001, timestamp: 126_456, ssrc: 2),
                                                     now: .milliseconds(600)))
        #expect(after.sequenceNumber == 14)
        #expect(after.timestamp == 6000 + 45000 + 3000)
        #expect(after.ssrc == 9)
    }

    @Test func leavesNoGapAfterASkip() throws {
        var rewriter = RTPRewriter(ssrc: 9, payloadType: 111, clockRate: 48000, firstSequence: 0, firstTimestamp: 0)
        _ = rewriter.rewrite(Self.packet(sequence: 100, timestamp: 960, ssrc: 1), now: .zero)
        rewriter.skip()
        let next = try Self.decode(rewriter.rewrite(Self.packet(sequence: 150, timestamp: 960 * 51, ssrc: 1),
                                                    now: .seconds(1)))
        #expect(next.sequenceNumber == 1)
        #expect(next.timestamp == 960 * 50)  // the timing holds: 50 packets of 20 ms later
        let then = try Self.decode(rewriter.rewrite(Self.packet(sequence: 151, timestamp: 960 * 52, ssrc: 1),
                                                    now: .seconds(1)))
        #expect(then.sequenceNumber == 2)
    }

    /// A late joiner's first keyframe is old: the packets after it follow it by the wall time, not by the age.
    @Test func aRetimedSkipFollowsTheLastPacketByTheWallTime() throws {
        var rewriter = RTPRewriter(ssrc: 9, payloadType: 96, clockRate: 90000, firstSequence: 0, firstTimestamp: 0)
        _ = rewriter.rewrite(Self.packet(sequence: 10, timestamp: 3000, ssrc: 1), now: .zero)  // sent 1.5 s late
        rewriter.skip(retime: true)
        let next = try Self.decode(rewriter.rewrite(Self.packet(sequence: 60, timestamp: 3000 + 135_000, ssrc: 1),
                                                    now: .milliseconds(20)))
        #expect(next.sequenceNumber == 1)
        #expect(next.timestamp == 1800)  // 20 ms of a 90 kHz clock after the keyframe, not 1.5 s
        let then = try Self.decode(rewriter.rewrite(Self.packet(sequence: 61, timestamp: 3000 + 138_000, ssrc: 1),
                                                    now: .milliseconds(53)))
        #expect(then.sequenceNumber == 2 && then.timestamp == 1800 + 3000)  // then the source's own spacing
    }

    @Test func mapsNACKsBackWithinTheCurrentOffsets() {
        var rewriter = RTPRewriter(ssrc: 9, payloadType: 96, clockRate: 90000, firstSequence: 65534, firstTimestamp: 0)
        for index: UInt16 in 0..<4 {
            _ = rewriter.rewrite(Self.packet(sequence: 200 + index, timestamp: 0, ssrc: 1), now: .zero)
        }
        #expect(rewriter.sourceSequence(of: 65534) == 200)
        #expect(rewriter.sourceSequence(of: 1) == 203)
        #expect(rewriter.sourceSequence(of: 2) == nil)  // not sent yet
        rewriter.skip()
        _ = rewriter.rewrite(Self.packet(sequence: 300, timestamp: 0, ssrc: 1), now: .zero)
        #expect(rewriter.sourceSequence(of: 2) == 300)
        #expect(rewriter.sourceSequence(of: 1) == nil)  // before the skip: its offset is gone
    }
}
