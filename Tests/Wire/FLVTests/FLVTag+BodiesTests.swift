import Testing
@testable import FLV

@Suite struct FLVTagBodiesTests {
    @Test func buildsTagsFromBodies() throws {
        let frame = FLVVideoTagBody.frame([0, 0, 0, 1, 0x65], isKeyFrame: true)
        #expect(FLVTag(video: frame, timestamp: 40) == FLVTag(type: .video, timestamp: 40, body: frame.encode()))
        let sound = FLVAudioTagBody.frame([0x21])
        #expect(FLVTag(audio: sound, timestamp: 23) == FLVTag(type: .audio, timestamp: 23, body: [0xAF, 0x01, 0x21]))
        let metadata = FLVMetadata(width: 320)
        #expect(try FLVMetadata(parsing: FLVTag(metadata: metadata).body) == metadata)
    }

    @Test(arguments: [
        (FLVTagType.video, [UInt8(0x17), 0x00, 0, 0, 0], true, true),   // AVC key frame, sequence header
        (.video, [0x17, 0x01, 0, 0, 0], true, false),                   // AVC key frame, NALU
        (.video, [0x27, 0x01, 0, 0, 0], false, false),                  // AVC inter frame
        (.video, [0x12, 0x00], true, false),                            // H.263 key frame: no AVC header
        (.audio, [0xAF, 0x00, 0x11, 0x90], false, true),                // AAC sequence header
        (.audio, [0xAF, 0x01, 0x21], false, false),                     // AAC raw
        (.audio, [0x2F, 0x00], false, false),                           // MP3: no sequence header
        (.scriptData, [0x17, 0x00], false, false),                      // script data is neither
        (.video, [0x17], true, false),                                  // too short to be a sequence header
    ])
    func peeksKeyFramesAndSequenceHeaders(type: FLVTagType, body: [UInt8], keyFrame: Bool, sequenceHeader: Bool) {
        let tag = FLVTag(type: type, timestamp: 0, body: body)
        #expect(tag.isVideoKeyFrame == keyFrame)
        #expect(tag.isSequenceHeader == sequenceHeader)
    }
}
