import ByteIO

/// Parses an FLV byte stream into tags as bytes arrive, without doing any I/O (FLV spec v10.1 §E.2, §E.3).
///
/// Feed bytes with `append(_:)`, then call `next()` until it returns nil (more bytes needed). It checks the file
/// header, every PreviousTagSize, each tag's type and its size against `maximumTagBodySize` before buffering the
/// body. Consumed bytes are released, so memory stays within one tag plus what was appended at once: feed a long
/// file in chunks. After an error, every later `next()` throws the same error.
public struct FLVReader: Sendable {
    /// Consumed bytes are dropped from the front of the buffer once at least this many accumulate (and they are at
    /// least half of it), so the copy is amortised.
    public static let compactionThreshold = 64 * 1024

    private enum State: Sendable {
        /// Waiting for the 9-byte file header (and any padding up to its DataOffset).
        case fileHeader
        /// Waiting for a PreviousTagSize that must equal the given value.
        case previousTagSize(expected: UInt32)
        /// Waiting for a tag header and its body.
        case tag
        /// A malformed stream was seen; the error repeats.
        case failed(FLVError)
    }

    /// The largest tag body accepted.
    public let maximumTagBodySize: Int
    /// The file header, once read (nil when the stream has no header or it has not arrived).
    public private(set) var header: FLVFileHeader?

    private var state: State
    private var buffer: [UInt8] = []
    private var readIndex = 0

    /// Creates a reader.
    /// - Parameters:
    ///   - maximumTagBodySize: the largest tag body accepted, at most `FLVTag.maximumBodySize` (16 MiB - 1, the
    ///     24-bit DataSize field); lower it to bound memory for untrusted input.
    ///   - expectsFileHeader: false to read a bare sequence of tags, each followed by its PreviousTagSize
    ///     (as in an RTMP aggregate message).
    public init(maximumTagBodySize: Int = FLVTag.maximumBodySize, expectsFileHeader: Bool = true) {
        self.maximumTagBodySize = min(max(maximumTagBodySize, 0), FLVTag.maximumBodySize)
        self.state = expectsFileHeader ? .fileHeader : .tag
    }

    /// Bytes appended but not yet returned as part of a tag (a partial tag, header or size field).
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Bytes held in memory, including consumed bytes not yet compacted away.
    public var retainedByteCount: Int { buffer.count }

    /// Adds received bytes.
    public mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next complete tag, or nil when more bytes are needed.
    /// - Throws: `FLVError` when the stream is malformed: a bad file header, a PreviousTagSize mismatch, an unknown
    ///   or encrypted tag type, or a tag larger than `maximumTagBodySize`.
    public mutating func next() throws(FLVError) -> FLVTag? {
        while true {
            var reader = ByteReader(buffer)
            reader.moveReaderIndex(to: readIndex)
            switch state {
            case .failed(let error):
                throw error
            case .fileHeader:
                let parsed: FLVFileHeader?
                do {
                    parsed = try FLVFileHeader.decode(from: &reader)
                } catch {
                    state = .failed(error)
                    throw error
                }
                guard let parsed else { return nil }
                header = parsed
                readIndex = reader.readerIndex
                state = .previousTagSize(expected: 0)
            case .previousTagSize(let expected):
                guard let size = reader.readUInt32() else { return nil }
                guard size == expected else {
                    let error = FLVError(.previousTagSizeMismatch, "PreviousTagSize is \(size) but the tag before "
                        + "it is \(expected) bytes; the file is corrupt or was cut and spliced")
                    state = .failed(error)
                    throw error
                }
                readIndex = reader.readerIndex
                state = .tag
            case .tag:
                let tagHeader: FLVTagHeader?
                do {
                    tagHeader = try FLVTagHeader.decode(from: &reader, maximumDataSize: maximumTagBodySize)
                } catch {
                    state = .failed(error)
                    throw error
                }
                guard let tagHeader, let body = reader.readBytes(Int(tagHeader.dataSize)) else { return nil }
                readIndex = reader.readerIndex
                state = .previousTagSize(expected: UInt32(FLVTagHeader.size) &+ tagHeader.dataSize)
                return FLVTag(type: tagHeader.type, timestamp: tagHeader.timestamp, body: body)
            }
        }
    }

    /// Drops consumed bytes: all of them when nothing is pending, or when they dominate a large buffer.
    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.compactionThreshold * 4)
            readIndex = 0
        } else if readIndex >= Self.compactionThreshold, readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }
}
