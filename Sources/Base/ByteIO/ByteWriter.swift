/// Appends big-endian integers and bytes to a growing array.
///
/// Every `write…` appends and returns how many bytes it wrote.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer.
    /// - Parameter capacity: bytes to reserve up front.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// How many bytes have been written.
    public var count: Int { bytes.count }

    /// Appends one byte.
    @discardableResult
    public mutating func writeUInt8(_ value: UInt8) -> Int {
        bytes.append(value)
        return 1
    }

    /// Appends a big-endian 16-bit integer.
    @discardableResult
    public mutating func writeUInt16(_ value: UInt16) -> Int {
        writeUInt(UInt64(value), width: 2)
    }

    /// Appends a big-endian 24-bit integer; bits above 24 are dropped.
    @discardableResult
    public mutating func writeUInt24(_ value: UInt32) -> Int {
        writeUInt(UInt64(value & 0xFF_FFFF), width: 3)
    }

    /// Appends a big-endian 32-bit integer.
    @discardableResult
    public mutating func writeUInt32(_ value: UInt32) -> Int {
        writeUInt(UInt64(value), width: 4)
    }

    /// Appends a little-endian 32-bit integer.
    @discardableResult
    public mutating func writeUInt32LE(_ value: UInt32) -> Int {
        writeUInt(UInt64(value.byteSwapped), width: 4)
    }

    /// Appends a big-endian 64-bit integer.
    @discardableResult
    public mutating func writeUInt64(_ value: UInt64) -> Int {
        writeUInt(value, width: 8)
    }

    /// Appends a big-endian IEEE-754 double.
    @discardableResult
    public mutating func writeDouble(_ value: Double) -> Int {
        writeUInt64(value.bitPattern)
    }

    /// Appends bytes.
    @discardableResult
    public mutating func writeBytes<S: Sequence>(_ value: S) -> Int where S.Element == UInt8 {
        let before = bytes.count
        bytes.append(contentsOf: value)
        return bytes.count - before
    }

    /// Appends bytes from contiguous storage with one copy. The generic `writeBytes` over any sequence is compiled once
    /// in this module and runs unspecialized from others; these overloads are what callers with arrays, slices and
    /// buffers get.
    @discardableResult
    public mutating func writeBytes(_ value: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.append(contentsOf: value)
        return value.count
    }

    /// Appends the bytes of an array with one copy.
    @discardableResult
    public mutating func writeBytes(_ value: [UInt8]) -> Int {
        value.withUnsafeBufferPointer { writeBytes($0) }
    }

    /// Appends the bytes of an array slice with one copy.
    @discardableResult
    public mutating func writeBytes(_ value: ArraySlice<UInt8>) -> Int {
        value.withUnsafeBufferPointer { writeBytes($0) }
    }

    /// Appends raw bytes with one copy.
    @discardableResult
    public mutating func writeBytes(_ value: UnsafeRawBufferPointer) -> Int {
        value.withMemoryRebound(to: UInt8.self) { writeBytes($0) }
    }

    /// Overwrites a big-endian integer of `width` bytes at an absolute index already written
    /// (for length fields filled in after the body).
    public mutating func setUInt(_ value: UInt64, at index: Int, width: Int) {
        precondition(index >= 0 && index + width <= bytes.count, "setUInt out of range")
        for offset in 0..<width {
            bytes[index + offset] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - offset)))
        }
    }

    @discardableResult
    private mutating func writeUInt(_ value: UInt64, width: Int) -> Int {
        for offset in (0..<width).reversed() {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(offset))))
        }
        return width
    }
}
