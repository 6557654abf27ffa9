import ByteIO

/// Produces the bytes of an FLV file, tag by tag, without doing any I/O (FLV spec v10.1 §E.3).
///
/// The file header and PreviousTagSize0 come first (written by the first call), then each tag followed by its
/// PreviousTagSize. Hand the bytes to a file or socket as they come.
public struct FLVWriter: Sendable {
    /// The header this writer starts the file with.
    public let header: FLVFileHeader
    /// Whether the file header has been produced.
    public private(set) var hasWrittenHeader = false

    /// Creates a writer.
    /// - Parameters:
    ///   - hasAudio: whether the header announces audio.
    ///   - hasVideo: whether the header announces video.
    public init(hasAudio: Bool = true, hasVideo: Bool = true) {
        self.header = FLVFileHeader(hasAudio: hasAudio, hasVideo: hasVideo)
    }

    /// Appends the file header and PreviousTagSize0 unless they were already written.
    public mutating func writeHeader(into writer: inout ByteWriter) {
        guard !hasWrittenHeader else { return }
        header.encode(into: &writer)
        writer.writeUInt32(0)
        hasWrittenHeader = true
    }

    /// Appends a tag and its PreviousTagSize, preceded by the file header if this is the first write.
    /// - Throws: `FLVError` (and appends nothing) when the body exceeds `FLVTag.maximumBodySize`.
    public mutating func write(_ tag: FLVTag, into writer: inout ByteWriter) throws(FLVError) {
        guard tag.body.count <= FLVTag.maximumBodySize else {
            throw FLVError(.tagTooLarge, "tag body of \(tag.body.count) bytes exceeds the 24-bit DataSize limit "
                + "of \(FLVTag.maximumBodySize) bytes; split or re-encode the data")
        }
        writeHeader(into: &writer)
        tag.header.encode(into: &writer)
        writer.writeBytes(tag.body)
        writer.writeUInt32(UInt32(truncatingIfNeeded: tag.encodedSize))
    }

    /// The bytes for a tag and its PreviousTagSize, preceded by the file header if this is the first write.
    /// - Throws: `FLVError` when the body exceeds `FLVTag.maximumBodySize`.
    public mutating func encode(_ tag: FLVTag) throws(FLVError) -> [UInt8] {
        var writer = ByteWriter(capacity: FLVFileHeader.size + 4 + tag.encodedSize + 4)
        try write(tag, into: &writer)
        return writer.bytes
    }

    /// The file header and PreviousTagSize0, or nothing if they were already produced.
    public mutating func encodeHeader() -> [UInt8] {
        var writer = ByteWriter(capacity: FLVFileHeader.size + 4)
        writeHeader(into: &writer)
        return writer.bytes
    }
}
