/// An incremental YUV4MPEG2 parser: the stream header once, then one `FRAME` record after another.
///
/// `append(_:)` bytes as they arrive, then `while let item = try parser.next()`. Nil means more bytes are needed;
/// a thrown ``CaptureError`` means the stream is malformed.
public struct Y4MParser: Sendable {
    /// One parsed element of the stream.
    public enum Item: Sendable, Hashable {
        /// The stream header (always first, exactly once).
        case header(Y4MHeader)
        /// One frame's I420 planes, packed: Y rows of `width` bytes, then U, then V.
        case frame([UInt8])
    }

    /// The word that opens every frame record.
    public static let frameMagic: [UInt8] = Array("FRAME".utf8)

    private var buffer: [UInt8] = []
    private var start = 0
    /// The stream header, once parsed.
    public private(set) var header: Y4MHeader?

    /// Creates a parser expecting the stream header.
    public init() {}

    /// Bytes received but not yet parsed.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes received from the file or pipe.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next header or frame.
    /// - Returns: nil when more bytes are needed.
    /// - Throws: ``CaptureError`` when the header or a frame record is malformed.
    public mutating func next() throws(CaptureError) -> Item? {
        guard let header else {
            guard let line = try nextLine() else {
                try checkPrefix(Y4MHeader.magic, what: "stream header")
                return nil
            }
            let parsed = try Y4MHeader(line: buffer[line])
            self.header = parsed
            start = line.upperBound + 1
            return .header(parsed)
        }
        guard let line = try nextLine() else {
            try checkPrefix(Self.frameMagic, what: "frame record")
            return nil
        }
        let record = buffer[line]
        guard record.starts(with: Self.frameMagic),
              record.count == Self.frameMagic.count || record[record.startIndex + Self.frameMagic.count] == 0x20
        else {
            throw CaptureError.y4m("Y4M frame record does not start with 'FRAME': the stream is damaged or "
                                       + "its header's size is wrong")
        }
        let payloadStart = line.upperBound + 1
        let payloadEnd = payloadStart + header.frameByteCount
        guard buffer.count >= payloadEnd else { return nil }
        let frame = Array(buffer[payloadStart..<payloadEnd])
        start = payloadEnd
        return .frame(frame)
    }

    /// The range of the next line (without its newline), nil when it is not complete yet.
    private func nextLine() throws(CaptureError) -> Range<Int>? {
        let limit = min(buffer.count, start + Y4MHeader.maximumLineLength + 1)
        guard let newline = buffer[start..<limit].firstIndex(of: 0x0A) else {
            if limit - start > Y4MHeader.maximumLineLength {
                throw CaptureError.y4m("Y4M header or frame line is longer than \(Y4MHeader.maximumLineLength) "
                                           + "bytes: this is not a YUV4MPEG2 stream")
            }
            return nil
        }
        return start..<newline
    }

    /// Fails early when the bytes so far cannot begin the expected word (e.g. a file that is not Y4M at all).
    private func checkPrefix(_ magic: [UInt8], what: String) throws(CaptureError) {
        let available = buffer[start...].prefix(magic.count)
        guard magic.starts(with: available) else {
            throw CaptureError.y4m("Y4M \(what) does not start with '\(String(decoding: magic, as: UTF8.self))': "
                                       + "this is not a YUV4MPEG2 stream, or it is damaged")
        }
    }
}
