import ByteIO
import Testing
@testable import FLV

@Suite struct FLVTagHeaderTests {
    static let videoHeader: [UInt8] = [
        0x09,              // tag type 9: video
        0x00, 0x01, 0x00,  // DataSize 256
        0x56, 0x34, 0x12,  // Timestamp bits 23...0: 0x563412
        0x78,              // TimestampExtended bits 31...24: 0x78
        0x00, 0x00, 0x00,  // StreamID 0
    ]

    @Test func decodesExtendedTimestamp() throws {
        var reader = ByteReader(Self.videoHeader)
        let header = try #require(try FLVTagHeader.decode(from: &reader))
        #expect(header == FLVTagHeader(type: .video, dataSize: 256, timestamp: 0x7856_3412))
        #expect(reader.isAtEnd)
    }

    @Test func encodesToTheSameBytes() {
        var writer = ByteWriter()
        FLVTagHeader(type: .video, dataSize: 256, timestamp: 0x7856_3412).encode(into: &writer)
        #expect(writer.bytes == Self.videoHeader)
    }

    @Test(arguments: [UInt32(0), 1, 0xFF_FFFF, 0x0100_0000, 0xFFFF_FFFF])
    func timestampRoundTrips(timestamp: UInt32) throws {
        var writer = ByteWriter()
        FLVTagHeader(type: .audio, dataSize: 0, timestamp: timestamp).encode(into: &writer)
        var reader = ByteReader(writer.bytes)
        #expect(try FLVTagHeader.decode(from: &reader)?.timestamp == timestamp)
    }

    @Test func needsAllElevenBytesAndDoesNotMoveUntilThen() throws {
        for count in 0..<FLVTagHeader.size {
            var reader = ByteReader(Array(Self.videoHeader.prefix(count)))
            #expect(try FLVTagHeader.decode(from: &reader) == nil)
            #expect(reader.readerIndex == 0)
        }
    }

    @Test func rejectsUnknownTypeEncryptionAndOversizedBody() {
        let cases: [([UInt8], FLVError.Code)] = [
            ([0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .unknownTagType),  // type 7 is not defined
            ([0x29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .encryptedTag),    // Filter bit 0x20 set on video
            ([0x08, 0x00, 0x10, 0x01, 0, 0, 0, 0, 0, 0, 0], .tagTooLarge),  // DataSize 4097 > limit 4096
        ]
        for (bytes, code) in cases {
            var reader = ByteReader(bytes)
            let error = #expect(throws: FLVError.self) {
                try FLVTagHeader.decode(from: &reader, maximumDataSize: 4096)
            }
            #expect(error?.code == code)
            #expect(reader.readerIndex == 0)
        }
    }
}
