import ByteIO
import Testing
@testable import FLV

@Suite struct FLVWriterTests {
    @Test func writesTheVectorFile() throws {
        var writer = FLVWriter(hasAudio: true, hasVideo: true)
        var output = ByteWriter()
        for tag in FLVVectors.tags {
            let type = try #require(FLVTagType(rawValue: tag.type))
            try writer.write(FLVTag(type: type, timestamp: tag.timestamp, body: tag.body), into: &output)
        }
        #expect(output.bytes == FLVVectors.file)
    }

    @Test func headerIsWrittenOnce() throws {
        var writer = FLVWriter(hasAudio: false, hasVideo: true)
        #expect(writer.encodeHeader() == [0x46, 0x4C, 0x56, 0x01, 0x01, 0, 0, 0, 9, 0, 0, 0, 0])
        #expect(writer.encodeHeader().isEmpty)
        let tag = try writer.encode(FLVTag(type: .scriptData, timestamp: 0, body: [0x05, 0x05, 0x05]))
        #expect(tag == FLVVectors.scriptTag)
    }

    @Test func refusesOversizedBodyWithoutWriting() {
        var writer = FLVWriter()
        var output = ByteWriter()
        let tag = FLVTag(type: .video, timestamp: 0, body: [UInt8](repeating: 0, count: FLVTag.maximumBodySize + 1))
        let error = #expect(throws: FLVError.self) { try writer.write(tag, into: &output) }
        #expect(error?.code == .tagTooLarge)
        #expect(output.count == 0)
        #expect(!writer.hasWrittenHeader)
    }

    /// A multi-tag stream of every kind, with a timestamp past 24 bits, survives writer → reader in any feed.
    @Test(arguments: FeedMode.allCases)
    func roundTripsThroughTheReader(mode: FeedMode) throws {
        let configuration = try AVCDecoderConfigurationRecord(sps: FLVVectors.sps, pps: FLVVectors.pps)
        let metadata = FLVMetadata(width: 1280, height: 720, frameRate: 30, videoCodecID: 7, encoder: "Stream")
        var tags = [
            FLVTag(type: .scriptData, timestamp: 0, body: metadata.encode()),
            FLVTag(type: .video, timestamp: 0, body: FLVVideoTagBody.sequenceHeader(configuration).encode()),
            FLVTag(type: .audio, timestamp: 0,
                   body: FLVAudioTagBody.sequenceHeader(AudioSpecificConfig(sampleRate: 48000,
                                                                            channelConfiguration: 2)).encode()),
        ]
        for index in 0..<50 {
            let time = 0xFF_FF00 &+ UInt32(index) * 33  // crosses into the extended timestamp byte
            let frame = FLVVideoTagBody.frame([0, 0, 0, 2, index == 0 ? 0x65 : 0x41, UInt8(index)],
                                              isKeyFrame: index == 0, compositionTime: Int32(index % 3) * 33)
            tags.append(FLVTag(type: .video, timestamp: time, body: frame.encode()))
            let sound = FLVAudioTagBody.frame([0x21, UInt8(index)])
            tags.append(FLVTag(type: .audio, timestamp: time, body: sound.encode()))
        }
        var writer = FLVWriter()
        var output = ByteWriter()
        for tag in tags {
            try writer.write(tag, into: &output)
        }
        var reader = FLVReader()
        #expect(try reader.readAll(output.bytes, mode) == tags)
    }
}
