import FLV
import RTP
import Testing
@testable import WebRTCServer

/// An RTMP publish's FLV video made RTP for WHEP players (pure).
struct RTMPVideoPacketsTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xc0, 0x1e, 0xda, 0x02, 0x80]
    static let pps: [UInt8] = [0x68, 0xce, 0x3c, 0x80]

    static func frame(_ nal: [UInt8], key: Bool, ms: UInt32, composition: Int32 = 0) -> FLVTag {
        let prefixed = [0, 0, 0, UInt8(nal.count)] + nal
        return FLVTag(video: .frame(prefixed, isKeyFrame: key, compositionTime: composition), timestamp: ms)
    }

    @Test func packetizesFramesWithParameterSetsBeforeKeyframes() throws {
        var packets = RTMPVideoPackets(ssrc: 77, firstSequence: 65535)
        let header = FLVTag(video: .sequenceHeader(try AVCDecoderConfigurationRecord(sps: Self.sps, pps: Self.pps)),
                            timestamp: 0)
        #expect(packets.packets(for: header).isEmpty)
        #expect(packets.profileLevelID == "42c01e")

        let keyframe = packets.packets(for: Self.frame([0x65, 0x88, 0x84], key: true, ms: 1000))
        #expect(keyframe.count == 2)  // SPS and PPS in one STAP-A, then the IDR slice
        let first = try RTPPacket(decoding: keyframe[0])
        #expect(first.sequenceNumber == 65535 && first.timestamp == 90000 && first.ssrc == 77 && !first.marker)
        #expect(first.payloadType == RTMPVideoPackets.payloadType)
        #expect(first.payload == [0x78, 0, 7] + Self.sps + [0, 4] + Self.pps)
        #expect(H264KeyframeGate.beginsKeyframe(keyframe[0]))
        let idr = try RTPPacket(decoding: keyframe[1])
        #expect(idr.sequenceNumber == 0 && idr.timestamp == 90000 && idr.marker && idr.payload == [0x65, 0x88, 0x84])

        let slice = packets.packets(for: Self.frame([0x41, 0x9a], key: false, ms: 1033))
        let next = try RTPPacket(decoding: try #require(slice.first))
        #expect(next.sequenceNumber == 1 && next.timestamp == 1033 * 90 && next.payload == [0x41, 0x9a])
        #expect(!H264KeyframeGate.beginsKeyframe(slice[0]))
        #expect(packets.packets(for: FLVTag(type: .audio, timestamp: 1040, body: [0xaf, 1, 0x21])).isEmpty)
    }

    @Test func refusesCompositionOffsets() {
        var packets = RTMPVideoPackets(ssrc: 1, firstSequence: 0)
        #expect(packets.packets(for: Self.frame([0x41, 0x9a], key: false, ms: 0, composition: 66)).isEmpty)
        #expect(packets.refusal?.contains("B-frames") == true)
        #expect(packets.packets(for: Self.frame([0x65, 0x88], key: true, ms: 33)).isEmpty)
    }
}
