import Testing
@testable import FLV

@Suite struct AnnexBTests {
    /// An x264-style key frame: AUD, SPS, PPS, SEI, then an IDR picture in two slices; mixed start codes and a
    /// trailing zero byte.
    static let keyFrame: [UInt8] = [
        0x00, 0x00, 0x00, 0x01, 0x09, 0xF0,  // 4-byte start code, AUD
        0x00, 0x00, 0x00, 0x01,              // 4-byte start code
    ] + FLVVectors.sps + [
        0x00, 0x00, 0x01,                    // 3-byte start code
    ] + FLVVectors.pps + [
        0x00, 0x00, 0x01, 0x06, 0x05, 0x01, 0xAA, 0x80,  // 3-byte start code, SEI
        0x00, 0x00, 0x00, 0x01, 0x65, 0x88, 0x84, 0x00, 0x00, 0x03, 0x01,  // IDR slice 0 (with an escape)
        0x00, 0x00, 0x01, 0x65, 0x00, 0x21, 0xE2, 0x00,  // IDR slice 1, then a trailing_zero_8bits
    ]

    static let keyFrameUnits: [[UInt8]] = [
        [0x09, 0xF0], FLVVectors.sps, FLVVectors.pps, [0x06, 0x05, 0x01, 0xAA, 0x80],
        [0x65, 0x88, 0x84, 0x00, 0x00, 0x03, 0x01], [0x65, 0x00, 0x21, 0xE2],
    ]

    @Test func splitsOnThreeAndFourByteStartCodes() {
        #expect(AnnexB.split(Self.keyFrame).map(Array.init) == Self.keyFrameUnits)
    }

    @Test func convertsToLengthPrefixedAndBack() throws {
        let avcc = AnnexB.lengthPrefixed(Self.keyFrame)
        #expect(Array(avcc.prefix(12)) == [
            0x00, 0x00, 0x00, 0x02,  // length 2
            0x09, 0xF0,              // AUD
            0x00, 0x00, 0x00, 0x1A,  // length 26
            0x67, 0x64,              // SPS header, profile
        ])
        #expect(avcc.count == Self.keyFrameUnits.reduce(0) { $0 + 4 + $1.count })
        #expect(try AnnexB.splitLengthPrefixed(avcc).map(Array.init) == Self.keyFrameUnits)
        let annexB = try AnnexB.fromLengthPrefixed(avcc)
        #expect(AnnexB.split(annexB).map(Array.init) == Self.keyFrameUnits)
        #expect(annexB.prefix(6) == [0x00, 0x00, 0x00, 0x01, 0x09, 0xF0])
    }

    @Test func findsParameterSets() throws {
        let sets = try #require(AnnexB.parameterSets(in: Self.keyFrame))
        #expect(sets.sps == FLVVectors.sps)
        #expect(sets.pps == FLVVectors.pps)
        #expect(AnnexB.parameterSets(in: [0x00, 0x00, 0x01, 0x41, 0x9A]) == nil)  // an inter frame has none
    }

    @Test func dropsLeadingGarbageAndEmptyUnits() {
        let bytes: [UInt8] = [
            0xFF, 0x12,              // junk before the first start code
            0x00, 0x00, 0x01,        // start code with nothing after it before the next
            0x00, 0x00, 0x01, 0x41,  // non-IDR slice
        ]
        #expect(AnnexB.split(bytes).map(Array.init) == [[0x41]])
        #expect(AnnexB.split([]).isEmpty)
        #expect(AnnexB.split([0x00, 0x00]).isEmpty)
    }

    @Test(arguments: [1, 2, 4])
    func splitsEveryLengthSize(lengthSize: Int) throws {
        var payload: [UInt8] = []
        for unit in Self.keyFrameUnits {
            payload += (0..<lengthSize).reversed().map { UInt8(truncatingIfNeeded: unit.count >> (8 * $0)) } + unit
        }
        #expect(try AnnexB.splitLengthPrefixed(payload, lengthSize: lengthSize).map(Array.init) == Self.keyFrameUnits)
    }

    @Test func rejectsMalformedLengthPrefixedUnits() {
        let cases: [([UInt8], Int)] = [
            ([0x00, 0x00, 0x00, 0x05, 0x65, 0x88], 4),  // length 5, two bytes follow
            ([0x00, 0x00, 0x02, 0x65, 0x88], 4),        // cut inside the length field
            ([0xFF, 0xFF, 0xFF, 0xFF], 4),              // 4 GiB length
            ([0x00, 0x01, 0x65], 3),                    // 3-byte lengths do not exist
        ]
        for (payload, lengthSize) in cases {
            let error = #expect(throws: FLVError.self) {
                try AnnexB.splitLengthPrefixed(payload, lengthSize: lengthSize)
            }
            #expect(error?.code == .invalidNALUnits)
        }
    }
}
