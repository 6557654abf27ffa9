import Testing
@testable import ByteIO

struct ByteWriterTests {
    @Test func integersAreBigEndianExceptTheLittleEndianOne() {
        var writer = ByteWriter()
        writer.writeUInt8(0x01)
        writer.writeUInt16(0x0203)
        writer.writeUInt24(0xFF04_0506)  // bits above 24 dropped
        writer.writeUInt32(0x0708_090A)
        writer.writeUInt32LE(0x0E0D_0C0B)
        #expect(writer.bytes == [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E])
    }

    /// Arrays, slices and buffers take the contiguous overloads; any other sequence the generic one: the bytes and
    /// the counts are the same.
    @Test(arguments: [0, 1, 3, 1000])
    func everyWriteBytesOverloadAppendsTheSameBytes(length: Int) {
        let source = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var writers = [ByteWriter](repeating: ByteWriter(), count: 5)
        for index in writers.indices { writers[index].writeUInt8(0xAA) }
        #expect(writers[0].writeBytes(source) == length)
        #expect(writers[1].writeBytes(source[...]) == length)
        #expect(source.withUnsafeBufferPointer { writers[2].writeBytes($0) } == length)
        #expect(source.withUnsafeBytes { writers[3].writeBytes($0) } == length)
        #expect(writers[4].writeBytes(source.lazy.map { $0 }) == length)
        for writer in writers {
            #expect(writer.bytes == [0xAA] + source)
        }
    }
}
