/// Bytes received and not yet consumed, for incremental parsers fed by a socket (`append(_:)`, then read from the
/// front). Consumed bytes are dropped lazily, and an emptied buffer lets go of its storage, so thousands of idle
/// connections hold no receive memory.
public struct InputBuffer: Sendable {
    private var storage: [UInt8] = []
    private var readIndex = 0
    /// Storage larger than this is released, rather than kept for reuse, once everything has been consumed.
    private static let retainedCapacity = 4096

    /// Creates an empty buffer.
    public init() {}

    /// Bytes appended and not yet consumed.
    public var count: Int { storage.count - readIndex }

    /// True when nothing is waiting.
    public var isEmpty: Bool { readIndex == storage.count }

    /// Adds bytes at the end. Appending to an empty buffer adopts the array without copying it.
    public mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if isEmpty {
            storage = bytes
            readIndex = 0
            return
        }
        if readIndex > 0 && readIndex >= storage.count / 2 {
            storage.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// The byte `offset` places after the front (offset < ``count``).
    public subscript(offset: Int) -> UInt8 {
        storage[readIndex + offset]
    }

    /// The offset of the first occurrence of `byte` at or after `start`, or nil.
    public func firstIndex(of byte: UInt8, from start: Int = 0) -> Int? {
        var index = readIndex + start
        let end = storage.count
        while index < end {
            if storage[index] == byte { return index - readIndex }
            index += 1
        }
        return nil
    }

    /// Calls `body` with the unconsumed bytes (no copy).
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[readIndex...]))
        }
    }

    /// A copy of `count` bytes starting `offset` places after the front, without consuming them.
    public func peek(_ count: Int, at offset: Int = 0) -> ArraySlice<UInt8> {
        storage[(readIndex + offset)..<(readIndex + offset + count)]
    }

    /// Removes and returns the first `count` bytes (count ≤ ``count``). Taking everything hands over the storage
    /// without copying.
    public mutating func read(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= self.count, "InputBuffer.read past the end")
        if readIndex == 0 && count == storage.count {
            defer { storage = [] }
            return storage
        }
        let bytes = Array(storage[readIndex..<(readIndex + count)])
        skip(count)
        return bytes
    }

    /// Drops the first `count` bytes (count ≤ ``count``).
    public mutating func skip(_ count: Int) {
        precondition(count >= 0 && count <= self.count, "InputBuffer.skip past the end")
        readIndex += count
        if readIndex == storage.count {
            if storage.capacity > Self.retainedCapacity {
                storage = []
            } else {
                storage.removeAll(keepingCapacity: true)
            }
            readIndex = 0
        }
    }

    /// Removes and returns everything.
    public mutating func readAll() -> [UInt8] {
        read(count)
    }
}
