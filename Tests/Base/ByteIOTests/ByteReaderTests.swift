import Testing
@testable import ByteIO

@Suite struct ByteReaderTests {
    @Test func readsBigEndianIntegers() {
        var reader = ByteReader([
            0x01,                    // u8
            0x02, 0x03,              // u16 0x0203
            0x04, 0x05, 0x06,        // u24 0x040506
            0x07, 0x08, 0x09, 0x0A,  // u32 0x0708090A
            0x0B, 0x00, 0x00, 0x00,  // u32 LE 0x0000000B
        ])
        #expect(reader.readUInt8() == 0x01)
        #expect(reader.readUInt16() == 0x0203)
        #expect(reader.readUInt24() == 0x040506)
        #expect(reader.readUInt32() == 0x0708_090A)
        #expect(reader.readUInt32LE() == 0x0B)
        #expect(reader.isAtEnd)
    }

    @Test func shortReadsReturnNilAndDoNotMove() {
        var reader = ByteReader([0x01, 0x02, 0x03])
        #expect(reader.readUInt32() == nil)
        #expect(reader.readerIndex == 0)
        #expect(reader.readBytes(4) == nil)
        #expect(reader.readBytes(-1) == nil)
        #expect(reader.skip(4) == false)
        #expect(reader.readUInt24() == 0x010203)
        #expect(reader.readUInt8() == nil)
    }

    @Test func doubleRoundTrips() {
        var writer = ByteWriter()
        writer.writeDouble(1.5)
        // AMF0 spec: numbers are IEEE-754 big-endian; 1.5 = 3FF8 0000 0000 0000.
        #expect(writer.bytes == [0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        var reader = ByteReader(writer.bytes)
        #expect(reader.readDouble() == 1.5)
    }

    @Test func writerSetsLengthFieldsAfterTheFact() {
        var writer = ByteWriter()
        writer.writeUInt24(0)
        writer.writeBytes([0xAA, 0xBB])
        writer.setUInt(2, at: 0, width: 3)
        #expect(writer.bytes == [0x00, 0x00, 0x02, 0xAA, 0xBB])
        #expect(writer.writeUInt24(0x1FF_FFFF) == 3)
        #expect(writer.bytes.suffix(3) == [0xFF, 0xFF, 0xFF])
    }
}
