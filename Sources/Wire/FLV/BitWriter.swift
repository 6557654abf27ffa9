/// Appends big-endian bit fields (MSB first); the last byte is zero-padded.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    /// Appends the low `count` bits (0...32) of `value`.
    mutating func write(_ value: UInt32, bits count: Int) {
        precondition(count >= 0 && count <= 32, "bit field width out of range")
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if bitCount & 7 == 0 {
                bytes.append(0)
            }
            let bit = UInt8(truncatingIfNeeded: value >> UInt32(shift)) & 1
            bytes[bytes.count - 1] |= bit << (7 - UInt8(bitCount & 7))
            bitCount += 1
        }
    }
}
