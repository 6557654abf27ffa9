import ByteIO

/// The 11-byte header in front of every tag body in an FLV file (FLV spec v10.1 §E.4.1).
///
/// ```
/// Reserved UB[2] = 0, Filter UB[1] = 0, TagType UB[5]
/// DataSize UI24, Timestamp UI24, TimestampExtended UI8 (bits 31...24), StreamID UI24 = 0
/// ```
public struct FLVTagHeader: Sendable, Hashable {
    /// The encoded size of a tag header.
    public static let size = 11

    /// Whether the tag is audio, video or script data.
    public var type: FLVTagType
    /// The number of body bytes after the header (24 bits).
    public var dataSize: UInt32
    /// Decoding timestamp in milliseconds (all 32 bits).
    public var timestamp: UInt32

    /// Creates a tag header.
    public init(type: FLVTagType, dataSize: UInt32, timestamp: UInt32) {
        self.type = type
        self.dataSize = dataSize
        self.timestamp = timestamp
    }

    /// Appends the 11 header bytes. `dataSize` above 24 bits is truncated: check it before encoding.
    /// - Parameter writer: where to append.
    public func encode(into writer: inout ByteWriter) {
        writer.writeUInt8(type.rawValue)
        writer.writeUInt24(dataSize)
        writer.writeUInt24(timestamp & 0xFF_FFFF)
        writer.writeUInt8(UInt8(truncatingIfNeeded: timestamp >> 24))
        writer.writeUInt24(0)
    }

    /// Reads a tag header, or returns nil (consuming nothing) when fewer than 11 bytes are available.
    /// - Parameters:
    ///   - reader: the bytes to read from.
    ///   - maximumDataSize: the largest body size to accept.
    /// - Throws: `FLVError` when the type is unknown, the tag is encrypted, or the body is too large.
    ///   The reader does not move when it throws.
    public static func decode(
        from reader: inout ByteReader,
        maximumDataSize: Int = FLVTag.maximumBodySize
    ) throws(FLVError) -> FLVTagHeader? {
        let start = reader.readerIndex
        // Peek first and consume only a valid header, so the reader never moves on failure.
        guard let typeByte = reader.getUInt8(at: start),
              let dataSize = reader.getUInt(at: start + 1, width: 3),
              let lower = reader.getUInt(at: start + 4, width: 3),
              let upper = reader.getUInt8(at: start + 7),
              reader.readableBytes >= size
        else { return nil }
        if typeByte & 0x20 != 0 {
            throw FLVError(.encryptedTag, "tag type byte 0x\(hex(typeByte)) has the Filter bit set; "
                + "encrypted FLV is not supported, re-encode the source without encryption")
        }
        guard let type = FLVTagType(rawValue: typeByte & 0x1F) else {
            throw FLVError(.unknownTagType, "tag type \(typeByte & 0x1F) is not audio (8), video (9) or "
                + "script data (18); the stream is corrupt or not FLV")
        }
        guard dataSize <= UInt64(max(maximumDataSize, 0)) else {
            throw FLVError(.tagTooLarge, "tag body of \(dataSize) bytes exceeds the limit of "
                + "\(maximumDataSize) bytes; the stream is corrupt or the limit too small")
        }
        reader.skip(size)
        return FLVTagHeader(type: type, dataSize: UInt32(truncatingIfNeeded: dataSize),
                            timestamp: UInt32(upper) << 24 | UInt32(truncatingIfNeeded: lower))
    }
}
