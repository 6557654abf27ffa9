/// Reads a file response's byte range in pieces, as the connection takes them. Loop-thread only.
final class FileSender {
    /// Bytes read per piece.
    static let chunkSize = 64 * 1024
    /// Reading stops while more than this waits in the connection's queue.
    static let queueTarget = 256 * 1024
    /// At most this much is read for one connection per loop turn, so a fast client of a large file does not
    /// starve the others.
    static let bytesPerTurn = 1024 * 1024

    private let file: OpenFile
    private var offset: Int
    private let end: Int

    init(_ body: HTTPFileBody) {
        file = body.file
        offset = body.range.lowerBound
        end = body.range.upperBound
    }

    /// The next piece: empty at the end, nil when reading failed (the file shrank, or a disk error).
    func next() -> [UInt8]? {
        let count = min(Self.chunkSize, end - offset)
        guard count > 0 else { return [] }
        guard let bytes = file.read(count, at: offset) else { return nil }
        offset += count
        return bytes
    }
}
