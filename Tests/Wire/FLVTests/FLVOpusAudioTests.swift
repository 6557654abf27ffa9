import FLV
import Testing

/// Opus in Enhanced RTMP v2 audio tags, and RFC 7845's identification header.
@Suite struct FLVOpusAudioTests {
    /// RFC 7845 §5.1, stereo, pre-skip 312 (libopus' lookahead at 48 kHz), 48 kHz input, gain 0, mapping family 0.
    static let opusHead: [UInt8] = [
        0x4F, 0x70, 0x75, 0x73, 0x48, 0x65, 0x61, 0x64,  // "OpusHead"
        0x01,                                            // version 1
        0x02,                                            // 2 channels
        0x38, 0x01,                                      // pre-skip 312, little-endian
        0x80, 0xBB, 0x00, 0x00,                          // input sample rate 48000, little-endian
        0x00, 0x00,                                      // output gain 0
        0x00,                                            // channel mapping family 0
    ]

    @Test func theIdentificationHeaderIsRFC7845s() {
        #expect(FLVOpusAudio.identificationHeader(channels: 2, preSkip: 312) == Self.opusHead)
    }

    @Test func aSequenceStartAndAPacketRoundTrip() {
        let start = FLVTag(opus: .sequenceStart(Self.opusHead), timestamp: 0)
        #expect(start.body == [
            0x90,                    // SoundFormat 9 (ExHeader), AudioPacketType 0 (SequenceStart)
            0x4F, 0x70, 0x75, 0x73,  // FourCC "Opus"
        ] + Self.opusHead)
        #expect(start.type == .audio && start.isSequenceHeader)
        #expect(FLVOpusAudio.payload(of: start.body) == .sequenceStart(Self.opusHead))

        let packet = FLVTag(opus: .packet([0xFC, 0xFF, 0xFE]), timestamp: 20)
        #expect(packet.body == [0x91, 0x4F, 0x70, 0x75, 0x73, 0xFC, 0xFF, 0xFE])  // AudioPacketType 1: coded frames
        #expect(!packet.isSequenceHeader)
        #expect(FLVOpusAudio.payload(of: packet.body) == .packet([0xFC, 0xFF, 0xFE]))
    }

    /// AAC tags, another FourCC, a sequence end and short bodies are not Opus payloads.
    @Test func otherAudioIsNotOpus() {
        #expect(FLVOpusAudio.payload(of: [0xAF, 0x01, 0x21]) == nil)                  // AAC raw
        #expect(FLVOpusAudio.payload(of: [0x91, 0x66, 0x4C, 0x61, 0x43, 0x00]) == nil)  // "fLaC"
        #expect(FLVOpusAudio.payload(of: [0x92, 0x4F, 0x70, 0x75, 0x73]) == nil)      // SequenceEnd
        #expect(FLVOpusAudio.payload(of: [0x91, 0x4F, 0x70]) == nil)
        #expect(FLVOpusAudio.payload(of: []) == nil)
    }
}
