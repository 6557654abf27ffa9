#if os(Linux)
import Encoders
import FLV
import Media
import Opus
import RTP
import Testing

@testable import WebRTCServer

struct WHIPAudioTagsTests {
    /// One second of a 440 Hz tone as Opus RTP packets (20 ms each), timestamps from `start`.
    static func packets(start: UInt32) throws -> [RTPPacket] {
        let encoder = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                                    bitrateKbps: 64))
        let tone = ToneGenerator(frequency: 440, amplitude: 0.5)
        var interleaved: [Float] = []
        for sample in 0..<Int64(48000) {
            let value = Float(tone.value(atSample: sample))
            interleaved += [value, value]
        }
        return try encoder.encode(interleaved: interleaved).enumerated().map { index, packet in
            RTPPacket(payloadType: 111, marker: false, sequenceNumber: UInt16(index),
                      timestamp: start &+ UInt32(index * 960), ssrc: 7, payload: packet.data)
        }
    }

    /// Audio waits for the video's first tag; then a frame per 1024 samples, timed from the wall-clock offset of the
    /// first packet after the video started, then by RTP time. The sequence header is 48 kHz stereo AAC-LC at 0.
    @Test func opusBecomesAACTagsOnTheVideoTimeline() throws {
        let transcode = try WHIPAudioTags()
        var tags: [FLVTag] = []
        for (index, packet) in try Self.packets(start: UInt32.max - 4800).enumerated() {
            // The video starts 100 ms in; the 6th packet arrives 40 ms after it.
            tags += transcode.tags(for: packet, sinceVideoStart: index < 5 ? nil : .milliseconds(40 + 20 * (index - 5)))
        }
        // 45 packets × 960 = 43 200 samples: 42 frames of 1024 (the encoder holds the rest).
        #expect(tags.count == 42 && transcode.frames == 42)
        let header = try FLVAudioTagBody(parsing: WHIPAudioTags.sequenceHeader.body)
        #expect(header.packetType == .sequenceHeader && header.data == [0x11, 0x90])
        #expect(WHIPAudioTags.sequenceHeader.timestamp == 0 && WHIPAudioTags.sequenceHeader.type == .audio)
        let frames = try tags.map { try FLVAudioTagBody(parsing: $0.body) }
        #expect(frames.allSatisfy { $0.packetType == .raw && !$0.data.isEmpty })
        // pts -1600, -576, 448 … samples (the encoder's delay) from 40 ms: 40 - 34, 40 - 12, 40 + 9.
        #expect(tags.prefix(3).map(\.timestamp) == [6, 28, 49])
        #expect(tags.last?.timestamp == 40 + UInt32((41 * 1024 - 1600) * 1000 / 48000))
    }

    /// A lost packet is concealed: the frames keep coming at the same times; a duplicate is dropped.
    @Test func aLostPacketKeepsTheTimelineAndADuplicateIsDropped() throws {
        let transcode = try WHIPAudioTags()
        var packets = try Self.packets(start: 1234)
        packets.remove(at: 20)
        packets.insert(packets[30], at: 31)
        var tags: [FLVTag] = []
        for packet in packets { tags += transcode.tags(for: packet, sinceVideoStart: .zero) }
        // 50 packets' time (one concealed) = 48 000 samples: 46 frames.
        #expect(transcode.frames == 46 && transcode.dropped == 1 && transcode.undecodable == 0)
        #expect(tags.last?.timestamp == UInt32((45 * 1024 - 1600) * 1000 / 48000))
    }
}
#endif
