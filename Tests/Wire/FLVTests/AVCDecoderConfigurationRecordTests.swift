import Testing
@testable import FLV

@Suite struct AVCDecoderConfigurationRecordTests {
    /// The record for `FLVVectors.sps` and `.pps`, as ffmpeg's flvenc writes it.
    static let record: [UInt8] = [
        0x01,        // configurationVersion 1
        0x64,        // AVCProfileIndication 100 (High), SPS byte 1
        0x00,        // profile_compatibility, SPS byte 2
        0x1F,        // AVCLevelIndication 31 (3.1), SPS byte 3
        0xFF,        // reserved 111111 | lengthSizeMinusOne 3
        0xE1,        // reserved 111 | numOfSequenceParameterSets 1
        0x00, 0x1A,  // sequenceParameterSetLength 26
    ] + FLVVectors.sps + [
        0x01,        // numOfPictureParameterSets 1
        0x00, 0x06,  // pictureParameterSetLength 6
    ] + FLVVectors.pps

    @Test func buildsFromSPSAndPPS() throws {
        let configuration = try AVCDecoderConfigurationRecord(sps: FLVVectors.sps, pps: FLVVectors.pps)
        #expect(configuration.profileIndication == 100)
        #expect(configuration.profileCompatibility == 0)
        #expect(configuration.levelIndication == 31)
        #expect(configuration.nalUnitLengthSize == 4)
        #expect(configuration.encode() == Self.record)
    }

    @Test func parsesTheRecord() throws {
        let configuration = try AVCDecoderConfigurationRecord(parsing: Self.record)
        #expect(configuration.sequenceParameterSets == [FLVVectors.sps])
        #expect(configuration.pictureParameterSets == [FLVVectors.pps])
        #expect(configuration == (try AVCDecoderConfigurationRecord(sps: FLVVectors.sps, pps: FLVVectors.pps)))
    }

    @Test func ignoresTheHighProfileExtension() throws {
        let extended = Self.record + [
            0xFD,  // reserved 111111 | chroma_format 1 (4:2:0)
            0xF8,  // reserved 11111 | bit_depth_luma_minus8 0
            0xF8,  // reserved 11111 | bit_depth_chroma_minus8 0
            0x00,  // numOfSequenceParameterSetExt 0
        ]
        #expect(try AVCDecoderConfigurationRecord(parsing: extended).sequenceParameterSets == [FLVVectors.sps])
    }

    @Test func parsesMultipleSetsAndTwoByteLengths() throws {
        let bytes: [UInt8] = [
            0x01, 0x42, 0xC0, 0x1E,  // version 1, Baseline, constraints 0xC0, level 3.0
            0xFD,                    // lengthSizeMinusOne 1: 2-byte lengths
            0xE2,                    // two SPS
            0x00, 0x04, 0x67, 0x42, 0xC0, 0x1E,  // SPS 0
            0x00, 0x05, 0x67, 0x42, 0xC0, 0x1E, 0x01,  // SPS 1
            0x02,                    // two PPS
            0x00, 0x02, 0x68, 0xCE,  // PPS 0
            0x00, 0x02, 0x68, 0xCF,  // PPS 1
        ]
        let configuration = try AVCDecoderConfigurationRecord(parsing: bytes)
        #expect(configuration.nalUnitLengthSize == 2)
        #expect(configuration.sequenceParameterSets.count == 2)
        #expect(configuration.pictureParameterSets == [[0x68, 0xCE], [0x68, 0xCF]])
        #expect(configuration.encode() == bytes)
    }

    /// Every truncation of a valid record throws rather than trapping or returning a partial record.
    @Test func everyTruncationThrows() {
        for count in 0..<Self.record.count {
            let error = #expect(throws: FLVError.self) {
                try AVCDecoderConfigurationRecord(parsing: Self.record.prefix(count))
            }
            #expect(error?.code == .invalidAVCConfiguration)
        }
    }

    @Test func rejectsMalformedRecords() {
        var badVersion = Self.record
        badVersion[0] = 0x02  // configurationVersion 2
        var threeByteLengths = Self.record
        threeByteLengths[4] = 0xFE  // lengthSizeMinusOne 2
        var noSPS = Self.record
        noSPS[5] = 0xE0  // numOfSequenceParameterSets 0, then the SPS bytes are misread
        var overlongSPS = Self.record
        overlongSPS[7] = 0xFF  // SPS length 255, past the end
        let noPPS: [UInt8] = Array(Self.record.prefix(8 + FLVVectors.sps.count)) + [0x00]  // numOfPPS 0
        for bytes in [badVersion, threeByteLengths, noSPS, overlongSPS, noPPS] {
            let error = #expect(throws: FLVError.self) { try AVCDecoderConfigurationRecord(parsing: bytes) }
            #expect(error?.code == .invalidAVCConfiguration)
        }
    }

    @Test func refusesToBuildFromWrongNALUnits() {
        let cases: [([UInt8], [UInt8])] = [
            (FLVVectors.pps, FLVVectors.pps),          // a PPS where the SPS belongs
            (FLVVectors.sps, FLVVectors.sps),          // an SPS where the PPS belongs
            ([0x67, 0x64, 0x00], FLVVectors.pps),      // SPS too short for profile and level
            (FLVVectors.sps, []),                      // empty PPS
        ]
        for (sps, pps) in cases {
            let error = #expect(throws: FLVError.self) { try AVCDecoderConfigurationRecord(sps: sps, pps: pps) }
            #expect(error?.code == .invalidAVCConfiguration)
        }
    }
}
