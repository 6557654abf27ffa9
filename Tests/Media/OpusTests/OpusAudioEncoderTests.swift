import COpus
import Encoders
import Media
import Opus
import Testing

struct OpusAudioEncoderTests {
    /// A 440 Hz tone goes through our encoder and libopus' own decoder and comes out at 440 Hz.
    @Test func aToneSurvivesEncodingAt48kHz() throws {
        let encoder = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                                    bitrateKbps: 64))
        #expect(encoder.frameSize == 960)
        #expect(encoder.primingSamples > 0 && encoder.primingSamples < 960)
        #expect(encoder.audioSpecificConfig.isEmpty)
        let tone = ToneGenerator(frequency: 440, amplitude: 0.5)
        var packets: [EncodedAudioPacket] = []
        // One second in uneven chunks, as capture delivers it.
        var sample: Int64 = 0
        for chunk in [480, 1024, 333, 2000] + Array(repeating: 1000, count: 44) + [163] {
            var interleaved: [Float] = []
            for index in 0..<Int64(chunk) {
                let value = Float(tone.value(atSample: sample + index))
                interleaved += [value, value]
            }
            sample += Int64(chunk)
            packets += try encoder.encode(interleaved: interleaved)
        }
        #expect(sample == 48000)
        #expect(packets.count == 50)
        packets += try encoder.flush()
        #expect(packets.count == 50)  // 48 000 samples are exactly 50 frames: nothing left to pad
        #expect(packets.first?.pts == -Int64(encoder.primingSamples))
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1.pts - $0.pts == 960 })
        #expect(packets.allSatisfy { $0.duration == 960 && $0.sampleRate == 48000 && $0.data.count < 400 })
        #expect(throws: EncoderError.self) { try encoder.encode(interleaved: [Float](repeating: 0, count: 2)) }

        var status: Int32 = 0
        let decoder = try #require(opus_decoder_create(48000, 2, &status))
        defer { opus_decoder_destroy(decoder) }
        var decoded: [Float] = []
        var frame = [Float](repeating: 0, count: 960 * 2)
        for packet in packets {
            let count = packet.data.withUnsafeBufferPointer { data in
                opus_decode_float(decoder, data.baseAddress, Int32(data.count), &frame, 960, 0)
            }
            #expect(count == 960)
            decoded += frame.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)  // the left channel
        }
        // Skip the first 100 ms (priming, the codec settling); count rising zero crossings over 0.8 s.
        let window = decoded[4800..<43200]
        let crossings = zip(window, window.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        let frequency = Double(crossings) / 0.8
        #expect(abs(frequency - 440) <= 440 * 0.02, "decoded tone at \(frequency) Hz")
        let peak = window.map(abs).max() ?? 0
        #expect(peak > 0.35 && peak < 0.7)
    }

    @Test func flushPadsThePartialFrame() throws {
        let encoder = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 1,
                                                                                    bitrateKbps: 32))
        #expect(try encoder.encode(interleaved: [Float](repeating: 0.1, count: 1500)).count == 1)
        let rest = try encoder.flush()
        #expect(rest.count == 1)
        #expect(rest.first?.pts == 960 - Int64(encoder.primingSamples))
        #expect(try encoder.flush().isEmpty)
    }

    @Test(arguments: [(44100, 2, 64), (48000, 2, 600), (48000, 2, 4), (48000, 3, 64)])
    func settingsOpusCannotHonourAreRefused(rate: Int, channels: Int, kbps: Int) {
        #expect(throws: EncoderError.self) {
            _ = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(sampleRate: rate, channels: channels,
                                                                              bitrateKbps: kbps))
        }
    }
}
