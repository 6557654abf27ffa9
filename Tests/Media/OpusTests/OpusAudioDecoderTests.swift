import Encoders
import Media
import Opus
import Testing

struct OpusAudioDecoderTests {
    /// Our encoder's 440 Hz tone decodes to 960 stereo sample frames per 20 ms packet, at 440 Hz; a lost packet is
    /// concealed with 960 frames that continue it rather than a click of silence.
    @Test func aToneDecodesAndALossIsConcealed() throws {
        let encoder = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                                    bitrateKbps: 64))
        let tone = ToneGenerator(frequency: 440, amplitude: 0.5)
        var interleaved: [Float] = []
        for sample in 0..<Int64(48000) {
            let value = Float(tone.value(atSample: sample))
            interleaved += [value, value]
        }
        let packets = try encoder.encode(interleaved: interleaved)
        #expect(packets.count == 50)
        let decoder = try OpusAudioDecoder()
        #expect(decoder.channels == 2)
        var left: [Float] = []
        for (index, packet) in packets.enumerated() {
            // Packet 30 is lost.
            let pcm = index == 30 ? decoder.conceal(samples: 960) : try decoder.decode(packet.data)
            #expect(pcm.count == 960 * 2)
            left += pcm.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        }
        let window = left[4800..<43200]
        let crossings = zip(window, window.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        let frequency = Double(crossings) / 0.8
        #expect(abs(frequency - 440) <= 440 * 0.02, "decoded tone at \(frequency) Hz")
        let concealed = left[(30 * 960)..<(31 * 960)]
        #expect((concealed.map(abs).max() ?? 0) > 0.1, "PLC continues the tone")
    }

    @Test func corruptAndEmptyPacketsAreErrors() throws {
        let decoder = try OpusAudioDecoder(channels: 1)
        #expect(throws: EncoderError.self) { try decoder.decode([]) }
        // TOC code 3 (arbitrary frame count) with a frame count byte of 0 is invalid (RFC 6716 §3.2.5).
        #expect(throws: EncoderError.self) { try decoder.decode([0x03, 0x00]) }
        #expect(decoder.conceal(samples: 960).count == 960)
        #expect(throws: EncoderError.self) { try OpusAudioDecoder(channels: 3) }
    }
}
