import Testing
@testable import RTP

struct RTCPPacketTests {
    /// A receiver report (RFC 3550 §6.4.2) with one block, then a generic NACK (RFC 4585 §6.2.1), a PLI (§6.3.1)
    /// and a FIR (RFC 5104 §4.3.1): a compound packet as a browser sends it.
    static let compound: [UInt8] = [
        0x81, 0xC9, 0x00, 0x07,  // V=2, RC=1, PT=201 RR, length 7 words
        0x00, 0x00, 0x00, 0x01,  // reporter SSRC 1
        0x00, 0x00, 0x04, 0x57,  // source SSRC 1111
        0x19, 0xFF, 0xFF, 0xFE,  // fraction lost 25/256, cumulative lost -2
        0x00, 0x01, 0x12, 0x34,  // extended highest sequence: cycle 1, 0x1234
        0x00, 0x00, 0x00, 0x10,  // jitter 16
        0x12, 0x34, 0x56, 0x78,  // LSR
        0x00, 0x01, 0x80, 0x00,  // DLSR 1.5 s
        0x81, 0xCD, 0x00, 0x03,  // V=2, FMT=1 generic NACK, PT=205, length 3
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x00, 0x00, 0x04, 0x57,  // media SSRC 1111
        0x00, 0x64, 0x00, 0x05,  // PID 100, BLP 0b101: 101 and 103 lost too
        0x81, 0xCE, 0x00, 0x02,  // FMT=1 PLI, PT=206, length 2
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x00, 0x00, 0x04, 0x57,  // media SSRC 1111
        0x84, 0xCE, 0x00, 0x04,  // FMT=4 FIR, PT=206, length 4
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x00, 0x00, 0x00, 0x00,  // media SSRC unused (0)
        0x00, 0x00, 0x04, 0x57,  // FCI: SSRC 1111
        0x03, 0x00, 0x00, 0x00,  //      command sequence number 3, reserved
    ]

    @Test func readsACompoundPacket() throws {
        let packets = try RTCPPacket.decodeCompound(Self.compound)
        #expect(packets.count == 4)
        guard case .receiverReport(let reporter, let blocks) = packets[0] else {
            Issue.record("first packet is \(packets[0])")
            return
        }
        #expect(reporter == 1)
        #expect(blocks == [RTCPReportBlock(ssrc: 1111, fractionLost: 25, cumulativeLost: -2,
                                           highestSequence: 0x0001_1234, jitter: 16, lastSenderReport: 0x1234_5678,
                                           delaySinceLastSenderReport: 0x0001_8000)])
        #expect(packets[1] == .nack(senderSSRC: 1, mediaSSRC: 1111, lost: [100, 101, 103]))
        #expect(packets[2] == .pictureLossIndication(senderSSRC: 1, mediaSSRC: 1111))
        #expect(packets[3] == .fullIntraRequest(senderSSRC: 1, entries: [(1111, 3)]))
        // What we would write is byte for byte what was read.
        #expect(packets.flatMap(\.encoded) == Self.compound)
    }

    @Test func everyTruncationIsAnErrorNotACrash() {
        for length in 1..<Self.compound.count where ![32, 48, 60].contains(length) {
            #expect(throws: RTPError.self) { try RTCPPacket.decodeCompound(Array(Self.compound.prefix(length))) }
        }
    }

    @Test func senderReportAndCNAMERoundTrip() throws {
        let report = RTCPPacket.senderReport(ssrc: 1111, ntpTimestamp: 0xE8F0_0000_8000_0000, rtpTimestamp: 90000,
                                             packetCount: 10, octetCount: 12000, reports: [])
        let sdes = RTCPPacket.sourceDescription([(1111, "stream-cname")])
        let bytes = report.encoded + sdes.encoded
        #expect(Array(report.encoded.prefix(4)) == [0x80, 0xC8, 0x00, 0x06])  // SR, no blocks, 6 words
        #expect(sdes.encoded.count % 4 == 0)
        #expect(try RTCPPacket.decodeCompound(bytes) == [report, sdes])
    }

    @Test func nackBitmasksCoverRunsAndWrap() throws {
        let lost: [UInt16] = [65534, 65535, 0, 1, 40]
        let nack = RTCPPacket.nack(senderSSRC: 1, mediaSSRC: 2, lost: lost)
        #expect(Array(nack.encoded.suffix(8)) == [0xFF, 0xFE, 0x00, 0x07, 0x00, 0x28, 0x00, 0x00])
        #expect(try RTCPPacket.decodeCompound(nack.encoded) == [nack])
    }

    @Test func rembReadsTheExponentAndMantissa() throws {
        let remb = RTCPPacket.estimatedMaximumBitrate(senderSSRC: 1, bitsPerSecond: 1_000_000, ssrcs: [1111])
        let decoded = try RTCPPacket.decodeCompound(remb.encoded)
        guard case .estimatedMaximumBitrate(_, let bits, let ssrcs)? = decoded.first else {
            Issue.record("not a REMB")
            return
        }
        #expect(bits <= 1_000_000 && bits > 999_990)
        #expect(ssrcs == [1111])
    }

    @Test func roundTripTimeFromAReportBlock() {
        // LSR 0x10000 (1 s), DLSR 0x8000 (0.5 s), arrival at 0x20000 (2 s): 0.5 s on the wire.
        let block = RTCPReportBlock(ssrc: 1, fractionLost: 0, cumulativeLost: 0, highestSequence: 0, jitter: 0,
                                    lastSenderReport: 0x10000, delaySinceLastSenderReport: 0x8000)
        #expect(NTPTime.roundTrip(block, arrival: 0x20000) == 0.5)
        #expect(NTPTime.timestamp(unixNanoseconds: 1_500_000_000) == (UInt64(2_208_988_801) << 32 | 0x8000_0000))
    }

    /// Found by FuzzRTCP: a payload-specific feedback message of format 15 that is not a REMB is kept whole, so it
    /// encodes back to what was read.
    @Test func unknownFeedbackKeepsItsBody() throws {
        let bytes: [UInt8] = [
            0x8F, 0xCE, 0x00, 0x05,  // FMT=15 (application layer), PT=206, length 5
            0x00, 0x00, 0x00, 0x01,  // sender SSRC
            0x00, 0x00, 0x00, 0x00,  // media SSRC
            0x52, 0x45, 0x5D, 0x42,  // "RE]B": not a REMB
            0x01, 0x0E, 0xDC, 0x6C,
            0x00, 0x00, 0x00, 0x02,
        ]
        let packets = try RTCPPacket.decodeCompound(bytes)
        #expect(packets == [.other(packetType: 206, format: 15, body: Array(bytes[4...]))])
        #expect(packets.flatMap(\.encoded) == bytes)
    }
}
