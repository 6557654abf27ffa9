import ByteIO

/// The header at the start of an FLV file (FLV spec v10.1 §E.2).
///
/// ```
/// Signature UI8[3] = "FLV", Version UI8 = 1,
/// TypeFlagsReserved UB[5] = 0, TypeFlagsAudio UB[1], TypeFlagsReserved UB[1] = 0, TypeFlagsVideo UB[1],
/// DataOffset UI32 = 9 (the header size)
/// ```
/// The body that follows starts with PreviousTagSize0, which is always 0.
public struct FLVFileHeader: Sendable, Hashable {
    /// The size of a version 1 header, and the DataOffset it records.
    public static let size = 9
    /// The only FLV version defined.
    public static let version: UInt8 = 1
    /// "FLV".
    public static let signature: [UInt8] = [0x46, 0x4C, 0x56]
    /// The largest DataOffset accepted when reading. The spec defines 9; a few writers pad, none by this much.
    public static let maximumDataOffset: UInt32 = 1024

    /// Whether the file announces audio tags.
    public var hasAudio: Bool
    /// Whether the file announces video tags.
    public var hasVideo: Bool

    /// Creates a header.
    public init(hasAudio: Bool, hasVideo: Bool) {
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
    }

    /// Appends the 9 header bytes (not PreviousTagSize0).
    public func encode(into writer: inout ByteWriter) {
        writer.writeBytes(Self.signature)
        writer.writeUInt8(Self.version)
        writer.writeUInt8((hasAudio ? 0x04 : 0) | (hasVideo ? 0x01 : 0))
        writer.writeUInt32(UInt32(Self.size))
    }

    /// Reads a header and skips any padding up to its DataOffset, or returns nil (consuming nothing) when more
    /// bytes are needed.
    /// - Throws: `FLVError` when the signature, version or DataOffset is wrong. The reader does not move.
    public static func decode(from reader: inout ByteReader) throws(FLVError) -> FLVFileHeader? {
        let start = reader.readerIndex
        // Check the signature byte by byte so that a wrong file fails on its first bytes.
        for (offset, expected) in signature.enumerated() {
            guard let byte = reader.getUInt8(at: start + offset) else { return nil }
            guard byte == expected else {
                throw FLVError(.invalidSignature, "byte \(offset) is 0x\(hex(byte)), expected 0x\(hex(expected)) "
                    + "of \"FLV\"; this is not an FLV file")
            }
        }
        guard let version = reader.getUInt8(at: start + 3) else { return nil }
        guard version == Self.version else {
            throw FLVError(.unsupportedVersion, "version \(version), only version 1 exists; "
                + "this is not an FLV file or a newer format")
        }
        guard let flags = reader.getUInt8(at: start + 4),
              let dataOffset = reader.getUInt(at: start + 5, width: 4)
        else { return nil }
        guard dataOffset >= UInt64(size), dataOffset <= UInt64(maximumDataOffset) else {
            throw FLVError(.invalidHeaderSize, "DataOffset \(dataOffset) is outside \(size)...\(maximumDataOffset); "
                + "the file header is corrupt")
        }
        guard reader.skip(Int(dataOffset)) else { return nil }
        return FLVFileHeader(hasAudio: flags & 0x04 != 0, hasVideo: flags & 0x01 != 0)
    }
}
