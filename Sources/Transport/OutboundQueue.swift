/// Bytes waiting to be written to a socket: a FIFO of chunks with a running byte count.
struct OutboundQueue {
    private var chunks: [[UInt8]] = []
    private var headIndex = 0
    /// Bytes of the head chunk already written.
    private var headOffset = 0
    /// Chunks smaller than this are merged with the previous chunk to save system calls.
    private static let coalesceLimit = 16 * 1024

    /// Bytes still to write.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        // Never grow the head chunk: a TLS write that must be retried needs the same bytes it was given.
        let last = chunks.count - 1
        if last > headIndex, chunks[last].count + bytes.count <= Self.coalesceLimit {
            chunks[last].append(contentsOf: bytes)
        } else {
            chunks.append(bytes)
        }
    }

    /// Calls `body` with the unwritten bytes of the head chunk; `body` returns how many it wrote (or a negative
    /// value on failure, which is returned unchanged).
    mutating func writeHead(_ body: (UnsafeRawBufferPointer) -> Int) -> Int {
        guard headIndex < chunks.count else { return 0 }
        let offset = headOffset
        let written = chunks[headIndex].withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[offset...]))
        }
        if written > 0 { consume(written) }
        return written
    }

    mutating func removeAll() {
        chunks.removeAll()
        headIndex = 0
        headOffset = 0
        count = 0
    }

    private mutating func consume(_ written: Int) {
        count -= written
        headOffset += written
        if headOffset == chunks[headIndex].count {
            chunks[headIndex] = []
            headIndex += 1
            headOffset = 0
            if headIndex == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                headIndex = 0
            } else if headIndex >= 64 && headIndex * 2 >= chunks.count {
                chunks.removeFirst(headIndex)
                headIndex = 0
            }
        }
    }
}
