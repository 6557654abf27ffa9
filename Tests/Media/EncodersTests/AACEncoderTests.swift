import Encoders
import Foundation
import Testing

@Suite struct AACEncoderTests {
    /// Interleaved samples of a 1 kHz sine at half scale, `seconds` long.
    static func sine(seconds: Double, sampleRate: Int = 48000, channels: Int) -> [Float] {
        let count = Int(seconds * Double(sampleRate))
        var samples: [Float] = []
        samples.reserveCapacity(count * channels)
        for index in 0..<count {
            let value = Float(0.5 * sin(2 * Double.pi * 1000 * Double(index) / Double(sampleRate)))
            samples.append(contentsOf: repeatElement(value, count: channels))
        }
        return samples
    }

    /// Feeds `samples` in chunks cycling through `chunkFrames` sample frames, then flushes.
    static func encode(_ encoder: AACEncoder, _ samples: [Float], chunkFrames: [Int]) throws
        -> (beforeFlush: [EncodedAudioPacket], all: [EncodedAudioPacket]) {
        let channels = encoder.configuration.channels
        var packets: [EncodedAudioPacket] = []
        var offset = 0
        var chunk = 0
        while offset < samples.count {
            let end = min(samples.count, offset + chunkFrames[chunk % chunkFrames.count] * channels)
            packets += try encoder.encode(interleaved: Array(samples[offset..<end]))
            offset = end
            chunk += 1
        }
        let beforeFlush = packets
        return (beforeFlush, packets + (try encoder.flush()))
    }

    /// ffmpeg's mean volume of a file in dB, from `-af volumedetect`.
    static func meanVolume(_ file: String) throws -> Double {
        let result = try Tool.run("ffmpeg", ["-hide_banner", "-nostats", "-i", file, "-af", "volumedetect",
                                             "-f", "null", "-"])
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("mean_volume:") })
        let value = line.split(separator: " ").dropLast().last.flatMap { Double($0) }
        return try #require(value, "cannot read \(line)")
    }

    @Test(arguments: [[441, 1000, 2048], [1024], [4096]])
    func twoSecondsOfStereoSineInAnyChunkSize(chunkFrames: [Int]) throws {
        let encoder = try AACEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                              bitrateKbps: 128))
        #expect(encoder.audioSpecificConfig == [0x11, 0x90])  // AAC-LC (2), 48 kHz (index 3), 2 channels
        #expect(encoder.frameSize == 1024)
        #expect(encoder.primingSamples == 1600)

        let (beforeFlush, packets) = try Self.encode(encoder, Self.sine(seconds: 2, channels: 2),
                                                     chunkFrames: chunkFrames)
        // 96 000 samples = 93 full frames + 768: a packet for each full frame as it completes; the flush encodes the
        // short last frame and the silence that pushes out the 1600-sample delay: 1600 + 96 000 samples, 96 frames.
        #expect(beforeFlush.count == 93)
        #expect(packets.count == 96)
        let expectedPTS: [Int64] = (0..<96).map { Int64($0) * 1024 - 1600 }
        #expect(packets.map(\.pts) == expectedPTS)
        #expect(packets.first?.ptsMilliseconds == -34)
        #expect(packets.dropFirst(2).first?.ptsMilliseconds == 9)
        #expect(packets.dropLast().allSatisfy { $0.duration == 1024 })
        #expect(packets.last.map { $0.pts + $0.duration } == 96_000)  // the last packet ends with the input
        #expect(packets.allSatisfy { !$0.data.isEmpty && $0.sampleRate == 48000 })

        let adts = try #require(ADTS(audioSpecificConfig: encoder.audioSpecificConfig))
        let directory = try TemporaryDirectory()
        let file = try directory.write("sine.aac", packets.flatMap { adts.wrap($0.data) })
        let stream = try Tool.probeFirstStream(file)
        #expect(stream["codec_name"] == "aac")
        #expect(stream["profile"] == "LC")
        #expect(stream["sample_rate"] == "48000")
        #expect(stream["channels"] == "2")
        let volume = try Self.meanVolume(file)
        #expect(volume > -12 && volume < -6, "a half-scale sine has an RMS of -9 dB, ffmpeg measured \(volume) dB")
    }

    @Test func monoFromInt16Samples() throws {
        let encoder = try AACEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 1,
                                                                              bitrateKbps: 64))
        #expect(encoder.audioSpecificConfig == [0x11, 0x88])  // AAC-LC (2), 48 kHz (index 3), 1 channel
        let samples = Self.sine(seconds: 1, channels: 1).map { Int16($0 * 32767) }
        var packets: [EncodedAudioPacket] = []
        for start in stride(from: 0, to: samples.count, by: 1000) {
            packets += try encoder.encode(interleaved: Array(samples[start..<min(samples.count, start + 1000)]))
        }
        packets += try encoder.flush()
        #expect(packets.count == 49)  // 1600 delay + 48 000 samples = 49 600 samples out, 48.4 frames

        let adts = try #require(ADTS(audioSpecificConfig: encoder.audioSpecificConfig))
        let directory = try TemporaryDirectory()
        let file = try directory.write("mono.aac", packets.flatMap { adts.wrap($0.data) })
        let stream = try Tool.probeFirstStream(file)
        #expect(stream["codec_name"] == "aac")
        #expect(stream["sample_rate"] == "48000")
        #expect(stream["channels"] == "1")
        let volume = try Self.meanVolume(file)
        #expect(volume > -12 && volume < -6, "a half-scale sine has an RMS of -9 dB, ffmpeg measured \(volume) dB")
    }

    @Test(arguments: [
        (AudioEncoderConfiguration(sampleRate: 44000, channels: 2, bitrateKbps: 128), "sample rates"),
        (AudioEncoderConfiguration(sampleRate: 0, channels: 2, bitrateKbps: 128), "sample rates"),
        (AudioEncoderConfiguration(sampleRate: 48000, channels: 0, bitrateKbps: 128), "mono or stereo"),
        (AudioEncoderConfiguration(sampleRate: 48000, channels: 6, bitrateKbps: 128), "mono or stereo"),
        (AudioEncoderConfiguration(sampleRate: 48000, channels: 2, bitrateKbps: 0), "bitrate"),
        (AudioEncoderConfiguration(sampleRate: 48000, channels: 2, bitrateKbps: -5), "bitrate"),
    ])
    func invalidConfigurationIsRefused(configuration: AudioEncoderConfiguration, mentions: String) throws {
        let error = try #require(throws: EncoderError.self) { try AACEncoder(configuration: configuration) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(configuration.summary))
        #expect(error.message.contains(mentions), "\(error.message)")
    }

    @Test func partialSampleFramesAndInputAfterFlushAreRefused() throws {
        let encoder = try AACEncoder(configuration: AudioEncoderConfiguration())
        let odd = try #require(throws: EncoderError.self) {
            try encoder.encode(interleaved: [Float](repeating: 0, count: 3))
        }
        #expect(odd.code == .invalidInput)
        #expect(try encoder.encode(interleaved: [Float](repeating: 0, count: 2046)).isEmpty)  // one short of a frame
        #expect(try encoder.encode(interleaved: [Float](repeating: 0, count: 2)).count == 1)
        #expect(try encoder.flush().count == 2)  // 1024 + 1600 samples out: two more frames of silence
        #expect(try encoder.flush().isEmpty)
        let late = try #require(throws: EncoderError.self) {
            try encoder.encode(interleaved: [Float](repeating: 0, count: 2))
        }
        #expect(late.code == .finished)
    }
}
