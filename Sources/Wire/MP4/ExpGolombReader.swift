import FLV

/// Reads the bit fields of an H.264 RBSP (ITU-T H.264 §7.2): fixed-width unsigned values `u(n)` and Exp-Golomb codes
/// `ue(v)` and `se(v)` (§9.1). Emulation prevention bytes are removed first (§7.4.1: `00 00 03` → `00 00`).
///
/// Never traps: a read past the end, or a code longer than 32 bits, returns nil.
struct ExpGolombReader {
    /// §9.1: codes with more than 31 leading zeros do not fit the 32-bit values any syntax element here needs.
    static let maximumLeadingZeros = 31

    private var bits: BitReader

    /// Creates a reader over a NAL unit's payload (after its header byte), removing emulation prevention bytes.
    init<C: Collection>(escaped payload: C) where C.Element == UInt8 {
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(payload.count)
        var zeros = 0
        for byte in payload {
            if zeros >= 2 && byte == 0x03 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            unescaped.append(byte)
        }
        bits = BitReader(unescaped)
    }

    /// Bits left to read.
    var remainingBits: Int { bits.remainingBits }

    /// `u(n)`: `count` bits (0...32), most significant first.
    mutating func read(_ count: Int) -> UInt32? {
        bits.read(count)
    }

    /// `u(1)` as a flag.
    mutating func readFlag() -> Bool? {
        read(1).map { $0 == 1 }
    }

    /// `ue(v)`: an unsigned Exp-Golomb code.
    mutating func readUnsigned() -> UInt32? {
        var leadingZeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            leadingZeros += 1
            guard leadingZeros <= Self.maximumLeadingZeros else { return nil }
        }
        guard let suffix = read(leadingZeros) else { return nil }
        return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + UInt64(suffix))
    }

    /// `se(v)`: a signed Exp-Golomb code (§9.1.1: k ↦ (−1)^(k+1) · ⌈k ÷ 2⌉).
    mutating func readSigned() -> Int32? {
        guard let code = readUnsigned() else { return nil }
        let magnitude = Int64((UInt64(code) + 1) / 2)
        return Int32(truncatingIfNeeded: code & 1 == 1 ? magnitude : -magnitude)
    }
}
