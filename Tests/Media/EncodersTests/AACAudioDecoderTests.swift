import Encoders
import Foundation
import Testing

/// The AAC decoder (FAAD2) on AAC it did not make: ffmpeg's native encoder at 44.1 kHz mono and 48 kHz stereo, as
/// an RTMP publisher (ffmpeg, OBS) sends it; and on our own libvo-aacenc output, as `stream broadcast` sends it.
@Suite struct AACAudioDecoderTests {
    /// ADTS frames (ISO 14496-3 §1.A.2.2) read back into their AudioSpecificConfig and raw frames.
    static func frames(ofADTS bytes: [UInt8]) throws -> (config: [UInt8], frames: [[UInt8]]) {
        var frames: [[UInt8]] = []
        var config: [UInt8] = []
        var offset = 0
        while offset + 7 <= bytes.count {
            try #require(bytes[offset] == 0xFF && bytes[offset + 1] & 0xF0 == 0xF0, "ADTS sync at \(offset)")
            let protectionAbsent = bytes[offset + 1] & 0x01 == 1
            let profile = bytes[offset + 2] >> 6                                  // object type - 1
            let frequencyIndex = (bytes[offset + 2] >> 2) & 0x0F
            let channels = (bytes[offset + 2] & 0x01) << 2 | bytes[offset + 3] >> 6
            let length = Int(bytes[offset + 3] & 0x03) << 11 | Int(bytes[offset + 4]) << 3
                | Int(bytes[offset + 5]) >> 5
            let header = protectionAbsent ? 7 : 9
            try #require(length > header && offset + length <= bytes.count, "ADTS frame at \(offset)")
            if config.isEmpty {
                // AudioSpecificConfig: 5 bits object type, 4 bits frequency index, 4 bits channels, 3 bits zero.
                let objectType = profile + 1
                config = [objectType << 3 | frequencyIndex >> 1, (frequencyIndex & 1) << 7 | channels << 3]
            }
            frames.append(Array(bytes[(offset + header)..<(offset + length)]))
            offset += length
        }
        return (config, frames)
    }

    /// ffmpeg's AAC of a 1 kHz sine.
    static func ffmpegAAC(sampleRate: Int, channels: Int) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aac-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("tone.aac").path
        let result = try Tool.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                             "-i", "sine=frequency=1000:sample_rate=\(sampleRate)", "-t", "2",
                                             "-ac", "\(channels)", "-c:a", "aac", "-b:a", "96k", "-f", "adts",
                                             output])
        try #require(result.status == 0, "\(result.stderr)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// The frequency of channel 0 of interleaved `samples`, by its zero crossings, past the first 4096 frames.
    static func frequency(_ samples: [Float], channels: Int, sampleRate: Int) -> Double {
        let left = stride(from: 4096 * channels, to: samples.count, by: channels).map { samples[$0] }
        var crossings = 0
        for index in 1..<left.count where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(left.count) / Double(sampleRate))
    }

    @Test(arguments: [(44100, 1), (48000, 2)])
    func decodesFFmpegsAAC(sampleRate: Int, channels: Int) throws {
        let (config, frames) = try Self.frames(ofADTS: try Self.ffmpegAAC(sampleRate: sampleRate, channels: channels))
        let decoder = try AACAudioDecoder(audioSpecificConfig: config)
        // FAAD2 gives a mono stream two equal channels (room for parametric stereo), and says so.
        #expect(decoder.sampleRate == sampleRate && decoder.channels == 2)
        var pcm: [Float] = []
        for frame in frames { pcm += try decoder.decode(frame) }
        #expect(pcm.count / 2 > sampleRate * 19 / 10, "about 2 s decoded: \(pcm.count / 2) frames")
        let peak = pcm.map(abs).max() ?? 0
        #expect(peak > 0.05 && peak <= 1.01, "ffmpeg's sine at its level, as floats in -1...1: \(peak)")
        let heard = Self.frequency(pcm, channels: 2, sampleRate: sampleRate)
        #expect(abs(heard - 1000) < 10, "the 1 kHz tone: \(heard) Hz")
        if channels == 1 {
            let equal = stride(from: 0, to: pcm.count, by: 2).allSatisfy { pcm[$0] == pcm[$0 + 1] }
            #expect(equal, "a mono stream's two channels are the same")
        }
    }

    @Test func decodesOurOwnEncoder() throws {
        let encoder = try AACEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                             bitrateKbps: 128))
        let packets = try AACEncoderTests.encode(encoder, AACEncoderTests.sine(seconds: 1, channels: 2),
                                                 chunkFrames: [1024]).all
        let decoder = try AACAudioDecoder(audioSpecificConfig: encoder.audioSpecificConfig)
        var pcm: [Float] = []
        for packet in packets { pcm += try decoder.decode(packet.data) }
        let heard = Self.frequency(pcm, channels: 2, sampleRate: 48000)
        #expect(abs(heard - 1000) < 10, "the 1 kHz tone: \(heard) Hz")
    }

    @Test func badBytesAreErrorsNotCrashes() throws {
        #expect(throws: EncoderError.self) { try AACAudioDecoder(audioSpecificConfig: [0xFF, 0xFF]) }
        let decoder = try AACAudioDecoder(audioSpecificConfig: [0x11, 0x90])  // 48 kHz stereo AAC-LC
        #expect(throws: EncoderError.self) { try decoder.decode([]) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let garbage = (0..<Int.random(in: 1...400, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            // Whatever FAAD2 makes of noise, it answers: samples or an error.
            _ = try? decoder.decode(garbage)
        }
    }
}
