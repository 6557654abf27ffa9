/// Reads big-endian bit fields (MSB first), as MPEG-4 and H.264 syntax is written. Never traps: reads past the end
/// return nil.
public struct BitReader: Sendable {
    private let bytes: [UInt8]
    private var bitIndex = 0

    /// Creates a reader at the first bit of `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Bits left to read.
    public var remainingBits: Int { bytes.count * 8 - bitIndex }

    /// Reads `count` bits (0...32) as an unsigned value.
    public mutating func read(_ count: Int) -> UInt32? {
        guard count >= 0, count <= 32, remainingBits >= count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<count {
            let bit = bytes[bitIndex >> 3] >> (7 - UInt8(bitIndex & 7)) & 1
            value = value << 1 | UInt32(bit)
            bitIndex += 1
        }
        return value
    }
}
