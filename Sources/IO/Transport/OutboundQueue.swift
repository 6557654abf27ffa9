import Glibc

/// Bytes waiting to be written to a socket: a FIFO of chunks with a running byte count.
///
/// Chunks are kept as given (arrays a relay shares among many connections are not copied): plain sockets write
/// many at once with ``writeGathered(_:)``. TLS writes one buffer at a time, so small chunks written for TLS are
/// merged (``append(_:merging:)``).
struct OutboundQueue {
    private var chunks: [[UInt8]] = []
    private var headIndex = 0
    /// Bytes of the head chunk already written.
    private var headOffset = 0
    /// Chunks smaller than this are merged with the previous chunk when merging is asked for.
    private static let coalesceLimit = 16 * 1024
    /// The most chunks one gathered write offers (Linux's IOV_MAX is 1024).
    static let gatherLimit = 64

    /// Bytes still to write.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Chunks still to write (each costs its array's allocation beside its bytes).
    var chunkCount: Int { chunks.count - headIndex }

    /// Queues `bytes`.
    /// - Parameter merging: copy small chunks into the previous one (for a writer that takes one buffer per call);
    ///   otherwise the array is kept as is, shared with whoever else holds it.
    mutating func append(_ bytes: [UInt8], merging: Bool = true) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        // Never grow the head chunk: a TLS write that must be retried needs the same bytes it was given.
        let last = chunks.count - 1
        if merging, last > headIndex, chunks[last].count + bytes.count <= Self.coalesceLimit {
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

    /// Calls `body` with the unwritten bytes of up to ``gatherLimit`` chunks as `iovec`s (the head chunk from its
    /// first unwritten byte); `body` returns how many bytes it wrote (or a negative value on failure, which is
    /// returned unchanged).
    mutating func writeGathered(_ body: (UnsafeBufferPointer<iovec>) -> Int) -> Int {
        guard headIndex < chunks.count else { return 0 }
        let end = min(chunks.count, headIndex + Self.gatherLimit)
        let written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: end - headIndex) { vectors in
            gather(headIndex, end: end, into: vectors, body)
        }
        if written > 0 { consume(written) }
        return written
    }

    /// Fills `vectors` with chunks `index..<end` (each pinned by its own `withUnsafeBytes` while `body` runs),
    /// then calls `body`.
    private func gather(_ index: Int, end: Int, into vectors: UnsafeMutableBufferPointer<iovec>,
                        _ body: (UnsafeBufferPointer<iovec>) -> Int) -> Int {
        guard index < end else {
            return body(UnsafeBufferPointer(rebasing: vectors[0..<(end - headIndex)]))
        }
        return chunks[index].withUnsafeBytes { raw in
            let offset = index == headIndex ? headOffset : 0
            vectors[index - headIndex] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + offset),
                                               iov_len: raw.count - offset)
            return gather(index + 1, end: end, into: vectors, body)
        }
    }

    mutating func removeAll() {
        chunks.removeAll()
        headIndex = 0
        headOffset = 0
        count = 0
    }

    /// Drops `written` bytes from the front, across as many chunks as they span.
    private mutating func consume(_ written: Int) {
        count -= written
        var remaining = written
        while remaining > 0 {
            let available = chunks[headIndex].count - headOffset
            if remaining < available {
                headOffset += remaining
                return
            }
            remaining -= available
            chunks[headIndex] = []
            headIndex += 1
            headOffset = 0
        }
        if headIndex == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            headIndex = 0
        } else if headIndex >= 64 && headIndex * 2 >= chunks.count {
            chunks.removeFirst(headIndex)
            headIndex = 0
        }
    }
}
