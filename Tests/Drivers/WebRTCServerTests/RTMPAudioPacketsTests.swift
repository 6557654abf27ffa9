import Encoders
import FLV
import Foundation
import Opus
import RTP
import Testing
@testable import WebRTCServer

/// An RTMP publish's AAC made Opus RTP for WHEP players: libvo-aacenc's AAC tags in (as `stream broadcast` sends
/// them), Opus packets out that libopus decodes back to the tone, on one SSRC with sequence numbers counting up and a
/// 48 kHz clock that follows the tags' times.
@Suite struct RTMPAudioPacketsTests {
    /// FLV audio tags of `seconds` of a 1 kHz sine, as an RTMP publisher sends them: the sequence header, then a tag
    /// per AAC frame at its time in milliseconds (plus `offset`).
    static func tags(sampleRate: Int, channels: Int, seconds: Double, offset: UInt32 = 0) throws -> [FLVTag] {
        let encoder = try AACEncoder(configuration: AudioEncoderConfiguration(sampleRate: sampleRate,
                                                                             channels: channels, bitrateKbps: 96))
        var samples: [Float] = []
        for index in 0..<Int(seconds * Double(sampleRate)) {
            let phase = 2 * Double.pi * 1000 * Double(index) / Double(sampleRate)
            samples.append(contentsOf: repeatElement(Float(0.5 * sin(phase)), count: channels))
        }
        let packets = try encoder.encode(interleaved: samples) + encoder.flush()
        let header = FLVTag(audio: .sequenceHeader(try AudioSpecificConfig(parsing: encoder.audioSpecificConfig)),
                            timestamp: offset)
        return [header] + packets.map { packet in
            FLVTag(audio: .frame(packet.data), timestamp: offset + UInt32(clamping: max(0, packet.ptsMilliseconds)))
        }
    }

    static func frequency(_ samples: [Float]) -> Double {
        let left = stride(from: 9600, to: samples.count, by: 2).map { samples[$0] }
        var crossings = 0
        for index in 1..<left.count where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(left.count) / 48000)
    }

    @Test(arguments: [(48000, 2), (44100, 1)])
    func aacBecomesOpusThatDecodesToTheTone(sampleRate: Int, channels: Int) throws {
        let transcode = RTMPAudioPackets(ssrc: 0x1234_5678, firstSequence: 65530, firstTimestamp: 4_294_967_000)
        var packets: [RTPPacket] = []
        for tag in try Self.tags(sampleRate: sampleRate, channels: channels, seconds: 2) {
            packets += try transcode.packets(for: tag).map { try RTPPacket(decoding: $0) }
        }
        #expect(transcode.refusal == nil && transcode.undecodable == 0)
        #expect(packets.count >= 95, "20 ms packets for about 2 s: \(packets.count)")
        #expect(packets.allSatisfy { $0.ssrc == 0x1234_5678 && $0.payloadType == 111 && !$0.marker })
        for (before, after) in zip(packets, packets.dropFirst()) {
            #expect(after.sequenceNumber == before.sequenceNumber &+ 1, "sequence numbers count up through the wrap")
            #expect(after.timestamp &- before.timestamp == 960, "20 ms of the 48 kHz clock between packets")
        }
        let decoder = try OpusAudioDecoder(channels: 2)
        var pcm: [Float] = []
        for packet in packets { pcm += try decoder.decode(packet.payload) }
        let heard = Self.frequency(pcm)
        #expect(abs(heard - 1000) < 15, "the publish's 1 kHz tone: \(heard) Hz")
    }

    /// A publisher that stops sending sound for 2 s: the packets after the gap are placed at their tags' time.
    @Test func aGapInTheSoundMovesTheClockOn() throws {
        let transcode = RTMPAudioPackets(ssrc: 1, firstSequence: 0, firstTimestamp: 0)
        var packets: [RTPPacket] = []
        let first = try Self.tags(sampleRate: 48000, channels: 2, seconds: 1)
        let second = try Self.tags(sampleRate: 48000, channels: 2, seconds: 1, offset: 3000).dropFirst()
        for tag in first + second { packets += try transcode.packets(for: tag).map { try RTPPacket(decoding: $0) } }
        let steps = zip(packets, packets.dropFirst()).map { $1.timestamp &- $0.timestamp }
        #expect(steps.filter { $0 != 960 }.count == 1, "one jump, at the gap: \(Set(steps))")
        let jump = try #require(steps.first { $0 != 960 })
        #expect((Int(jump) - 2 * 48000) / 48 < 150, "about 2 s more than a packet: \(jump) ticks")
    }

    @Test func aConfigFAAD2RefusesIsSaidAndNothingIsSent() throws {
        let transcode = RTMPAudioPackets(ssrc: 1, firstSequence: 0, firstTimestamp: 0)
        let bad = FLVTag(type: .audio, timestamp: 0, body: [0xAF, 0x00, 0xFF, 0xFF])
        #expect(transcode.packets(for: bad).isEmpty)
        #expect(transcode.refusal?.contains("cannot be transcoded") == true, "\(transcode.refusal ?? "none")")
        let frame = FLVTag(type: .audio, timestamp: 20, body: [0xAF, 0x01, 0x21, 0x00])
        #expect(transcode.packets(for: frame).isEmpty)
    }
}
