/// A cursor over bytes that reads big-endian integers without ever trapping.
///
/// Every `read…` consumes and returns an optional: `nil` means there are not enough bytes left,
/// and the cursor does not move. `get…(at:)` peeks without consuming. This is the only way the
/// pure codecs (AMF, FLV, RTMP) look at bytes, so a short or hostile input can never read out of
/// bounds.
public struct ByteReader: Sendable {
    /// The bytes being read.
    public let bytes: [UInt8]
    /// The index of the next byte to read.
    public private(set) var readerIndex: Int

    /// Creates a reader positioned at the first byte.
    /// - Parameter bytes: the bytes to read.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.readerIndex = 0
    }

    /// Creates a reader over a slice of bytes, positioned at its start.
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        self.init(Array(bytes))
    }

    /// How many bytes are left to read.
    public var readableBytes: Int { bytes.count - readerIndex }

    /// Whether every byte has been consumed.
    public var isAtEnd: Bool { readerIndex >= bytes.count }

    /// Moves the cursor back to an earlier position (for parsers that retry once more bytes arrive).
    /// - Parameter index: a position previously read from `readerIndex`.
    public mutating func moveReaderIndex(to index: Int) {
        precondition(index >= 0 && index <= bytes.count, "reader index out of range")
        readerIndex = index
    }

    /// Skips `count` bytes. Returns false (and does not move) when fewer remain.
    @discardableResult
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, readableBytes >= count else { return false }
        readerIndex += count
        return true
    }

    /// Reads one byte.
    public mutating func readUInt8() -> UInt8? {
        guard readableBytes >= 1 else { return nil }
        defer { readerIndex += 1 }
        return bytes[readerIndex]
    }

    /// Reads a big-endian 16-bit unsigned integer.
    public mutating func readUInt16() -> UInt16? {
        guard let value = getUInt(at: readerIndex, width: 2) else { return nil }
        readerIndex += 2
        return UInt16(truncatingIfNeeded: value)
    }

    /// Reads a big-endian 24-bit unsigned integer.
    public mutating func readUInt24() -> UInt32? {
        guard let value = getUInt(at: readerIndex, width: 3) else { return nil }
        readerIndex += 3
        return UInt32(truncatingIfNeeded: value)
    }

    /// Reads a big-endian 32-bit unsigned integer.
    public mutating func readUInt32() -> UInt32? {
        guard let value = getUInt(at: readerIndex, width: 4) else { return nil }
        readerIndex += 4
        return UInt32(truncatingIfNeeded: value)
    }

    /// Reads a little-endian 32-bit unsigned integer (RTMP's message stream id is little-endian).
    public mutating func readUInt32LE() -> UInt32? {
        guard let value = readUInt32() else { return nil }
        return value.byteSwapped
    }

    /// Reads a big-endian 64-bit unsigned integer.
    public mutating func readUInt64() -> UInt64? {
        guard let value = getUInt(at: readerIndex, width: 8) else { return nil }
        readerIndex += 8
        return value
    }

    /// Reads a big-endian IEEE-754 double.
    public mutating func readDouble() -> Double? {
        readUInt64().map { Double(bitPattern: $0) }
    }

    /// Reads `count` bytes.
    public mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, readableBytes >= count else { return nil }
        defer { readerIndex += count }
        return Array(bytes[readerIndex..<readerIndex + count])
    }

    /// Reads `count` bytes as a slice of the underlying storage (no copy).
    public mutating func readSlice(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, readableBytes >= count else { return nil }
        defer { readerIndex += count }
        return bytes[readerIndex..<readerIndex + count]
    }

    /// Reads every remaining byte.
    public mutating func readRemaining() -> [UInt8] {
        defer { readerIndex = bytes.count }
        return Array(bytes[readerIndex...])
    }

    /// Peeks a byte at an absolute index.
    public func getUInt8(at index: Int) -> UInt8? {
        guard index >= 0, index < bytes.count else { return nil }
        return bytes[index]
    }

    /// Peeks a big-endian unsigned integer of `width` bytes (1...8) at an absolute index.
    public func getUInt(at index: Int, width: Int) -> UInt64? {
        guard width >= 1, width <= 8, index >= 0, index <= bytes.count - width else { return nil }
        var value: UInt64 = 0
        for offset in 0..<width {
            value = value << 8 | UInt64(bytes[index + offset])
        }
        return value
    }
}
