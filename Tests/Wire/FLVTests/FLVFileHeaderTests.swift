import ByteIO
import Testing
@testable import FLV

@Suite struct FLVFileHeaderTests {
    @Test(arguments: [(false, false, UInt8(0x00)), (true, false, 0x04), (false, true, 0x01), (true, true, 0x05)])
    func encodesFlags(hasAudio: Bool, hasVideo: Bool, flags: UInt8) throws {
        var writer = ByteWriter()
        FLVFileHeader(hasAudio: hasAudio, hasVideo: hasVideo).encode(into: &writer)
        #expect(writer.bytes == [
            0x46, 0x4C, 0x56,        // "FLV"
            0x01,                    // version 1
            flags,                   // audio 0x04, video 0x01
            0x00, 0x00, 0x00, 0x09,  // DataOffset 9
        ])
        var reader = ByteReader(writer.bytes)
        #expect(try FLVFileHeader.decode(from: &reader) == FLVFileHeader(hasAudio: hasAudio, hasVideo: hasVideo))
        #expect(reader.isAtEnd)
    }

    @Test func skipsPaddingUpToDataOffset() throws {
        let bytes: [UInt8] = [
            0x46, 0x4C, 0x56,        // "FLV"
            0x01,                    // version 1
            0x01,                    // video only
            0x00, 0x00, 0x00, 0x0B,  // DataOffset 11: two bytes of padding follow
            0xAA, 0xBB,              // padding
        ]
        var short = ByteReader(Array(bytes.dropLast()))
        #expect(try FLVFileHeader.decode(from: &short) == nil)
        #expect(short.readerIndex == 0)
        var reader = ByteReader(bytes)
        #expect(try FLVFileHeader.decode(from: &reader) == FLVFileHeader(hasAudio: false, hasVideo: true))
        #expect(reader.isAtEnd)
    }

    @Test func rejectsWrongSignatureOnTheFirstBadByte() {
        var reader = ByteReader([0x47])  // "G": a GIF, not an FLV
        let error = #expect(throws: FLVError.self) { try FLVFileHeader.decode(from: &reader) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func rejectsVersionAndDataOffset() {
        let cases: [([UInt8], FLVError.Code)] = [
            ([0x46, 0x4C, 0x56, 0x02, 0x05, 0, 0, 0, 9], .unsupportedVersion),  // version 2
            ([0x46, 0x4C, 0x56, 0x01, 0x05, 0, 0, 0, 8], .invalidHeaderSize),   // DataOffset 8 < 9
            ([0x46, 0x4C, 0x56, 0x01, 0x05, 0x7F, 0, 0, 0], .invalidHeaderSize), // DataOffset 2 GiB
        ]
        for (bytes, code) in cases {
            var reader = ByteReader(bytes)
            let error = #expect(throws: FLVError.self) { try FLVFileHeader.decode(from: &reader) }
            #expect(error?.code == code)
        }
    }
}
