import Testing
@testable import FLV

@Suite struct FLVAudioTagBodyTests {
    @Test func buildsAndParsesSequenceHeader() throws {
        let body = FLVAudioTagBody.sequenceHeader(AudioSpecificConfig(sampleRate: 48000, channelConfiguration: 2))
        let bytes: [UInt8] = [
            0xAF,        // sound format 10 (AAC) << 4 | rate 3 << 2 | 16-bit << 1 | stereo
            0x00,        // AACPacketType 0: sequence header
            0x11, 0x90,  // AudioSpecificConfig: AAC-LC, 48 kHz, 2 channels
        ]
        #expect(body.encode() == bytes)
        #expect(try FLVAudioTagBody(parsing: bytes) == body)
    }

    @Test func parsesRawFrameIgnoringRateBits() throws {
        let bytes: [UInt8] = [
            0xAE,        // AAC with the mono bit clear, as some encoders write it
            0x01,        // AACPacketType 1: raw
            0x21, 0x10,  // AAC frame
        ]
        #expect(try FLVAudioTagBody(parsing: bytes) == .frame([0x21, 0x10]))
    }

    @Test func rejectsMalformedBodies() {
        let cases: [([UInt8], FLVError.Code)] = [
            ([], .invalidTagBody),            // empty
            ([0x2F, 0x01], .unsupportedCodec),  // sound format 2: MP3
            ([0xAF], .invalidTagBody),        // no AACPacketType
            ([0xAF, 0x02], .invalidTagBody),  // AACPacketType 2
        ]
        for (body, code) in cases {
            let error = #expect(throws: FLVError.self) { try FLVAudioTagBody(parsing: body) }
            #expect(error?.code == code, "\(body)")
        }
    }
}
