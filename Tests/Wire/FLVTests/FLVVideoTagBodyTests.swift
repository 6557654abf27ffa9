import Testing
@testable import FLV

@Suite struct FLVVideoTagBodyTests {
    @Test func parsesInterFrameWithNegativeCompositionTime() throws {
        let body: [UInt8] = [
            0x27,                    // frame type 2 (inter) << 4 | codec id 7 (AVC)
            0x01,                    // AVCPacketType 1: NALU
            0xFF, 0xFF, 0xFE,        // CompositionTime SI24 -2
            0x00, 0x00, 0x00, 0x01,  // NAL unit length 1
            0x41,                    // non-IDR slice header
        ]
        let parsed = try FLVVideoTagBody(parsing: body)
        #expect(parsed == FLVVideoTagBody(frameType: .interFrame, packetType: .nalu, compositionTime: -2,
                                          data: [0x00, 0x00, 0x00, 0x01, 0x41]))
        #expect(!parsed.isKeyFrame)
        #expect(parsed.encode() == body)
    }

    @Test func buildsKeyFrameWithPositiveCompositionTime() {
        let body = FLVVideoTagBody.frame([0x00, 0x00, 0x00, 0x01, 0x65], isKeyFrame: true, compositionTime: 66)
        #expect(body.encode() == [
            0x17,                    // frame type 1 (key) << 4 | codec id 7
            0x01,                    // NALU
            0x00, 0x00, 0x42,        // CompositionTime 66
            0x00, 0x00, 0x00, 0x01,  // NAL unit length 1
            0x65,                    // IDR slice header
        ])
    }

    @Test func buildsSequenceHeaderAndEndOfSequence() throws {
        let configuration = try AVCDecoderConfigurationRecord(sps: FLVVectors.sps, pps: FLVVectors.pps)
        let header = FLVVideoTagBody.sequenceHeader(configuration).encode()
        #expect(Array(header.prefix(5)) == [
            0x17,                    // key frame, AVC
            0x00,                    // AVCPacketType 0: sequence header
            0x00, 0x00, 0x00,        // CompositionTime 0
        ])
        #expect(try AVCDecoderConfigurationRecord(parsing: FLVVideoTagBody(parsing: header).data) == configuration)
        #expect(FLVVideoTagBody.endOfSequence.encode() == [
            0x17,                    // key frame, AVC
            0x02,                    // AVCPacketType 2: end of sequence
            0x00, 0x00, 0x00,        // CompositionTime 0
        ])
    }

    @Test(arguments: [Int32(0), 1, -1, 0x7F_FFFF, -0x80_0000])
    func compositionTimeRoundTrips(time: Int32) throws {
        let body = FLVVideoTagBody.frame([], isKeyFrame: false, compositionTime: time)
        #expect(try FLVVideoTagBody(parsing: body.encode()).compositionTime == time)
    }

    @Test func compositionTimeOutsideSI24IsClamped() throws {
        let high = FLVVideoTagBody.frame([], isKeyFrame: false, compositionTime: .max).encode()
        let low = FLVVideoTagBody.frame([], isKeyFrame: false, compositionTime: .min).encode()
        #expect(try FLVVideoTagBody(parsing: high).compositionTime == 0x7F_FFFF)
        #expect(try FLVVideoTagBody(parsing: low).compositionTime == -0x80_0000)
    }

    @Test func rejectsMalformedBodies() {
        let cases: [([UInt8], FLVError.Code)] = [
            ([], .invalidTagBody),                              // empty
            ([0x12, 0x00, 0x00, 0x00, 0x00], .unsupportedCodec),  // codec id 2: Sorenson H.263
            ([0x91, 0x68, 0x76, 0x63, 0x31], .unsupportedCodec),  // enhanced RTMP ExHeader ("hvc1")
            ([0x07, 0x01, 0x00, 0x00, 0x00], .invalidTagBody),  // frame type 0
            ([0x17, 0x01, 0x00, 0x00], .invalidTagBody),        // CompositionTime cut short
            ([0x17, 0x03, 0x00, 0x00, 0x00], .invalidTagBody),  // AVCPacketType 3
        ]
        for (body, code) in cases {
            let error = #expect(throws: FLVError.self) { try FLVVideoTagBody(parsing: body) }
            #expect(error?.code == code, "\(body)")
        }
    }
}
