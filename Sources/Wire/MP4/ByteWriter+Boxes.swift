import ByteIO

/// Writing ISO BMFF boxes (ISO/IEC 14496-12 §4.2): a 32-bit size, a four-character type, then the body. The size
/// is written as 0 and filled in once the body is done, so nested boxes are written in one pass.
extension ByteWriter {
    /// Appends a box whose body `body` writes.
    /// - Precondition: the box is smaller than 4 GiB (the boxes here hold one part's media).
    mutating func writeBox(_ type: FourCC, _ body: (inout ByteWriter) -> Void) {
        let start = count
        writeUInt32(0)
        writeBytes(type.bytes)
        body(&self)
        let size = count - start
        precondition(size <= Int(UInt32.max), "box \(type) of \(size) bytes needs a 64-bit size")
        setUInt(UInt64(size), at: start, width: 4)
    }

    /// Appends a full box: a box whose body starts with an 8-bit version and 24 bits of flags (§4.2).
    mutating func writeFullBox(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0,
                               _ body: (inout ByteWriter) -> Void) {
        writeBox(type) { writer in
            writer.writeUInt8(version)
            writer.writeUInt24(flags)
            body(&writer)
        }
    }

    /// Appends `count` zero bytes (reserved and pre_defined fields).
    mutating func writeZeros(_ count: Int) {
        writeBytes(repeatElement(UInt8(0), count: count))
    }

    /// Appends the unity transformation matrix of `mvhd` and `tkhd` (§8.2.2.3: { 0x00010000, 0, 0, 0, 0x00010000,
    /// 0, 0, 0, 0x40000000 }).
    mutating func writeUnityMatrix() {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] {
            writeUInt32(value)
        }
    }
}
