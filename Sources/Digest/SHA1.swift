/// SHA-1 (FIPS 180-4 §6.1), in pure Swift: STUN's MESSAGE-INTEGRITY (RFC 8489 §14.5) is an HMAC-SHA1.
///
/// SHA-1 is broken for collision resistance; it is here only because the protocols that use it fix it.
public struct SHA1: Sendable {
    /// FIPS 180-4 §5.3.1: the initial hash value H(0).
    private static let initialHash: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0]

    /// SHA-1 works on 64-byte blocks.
    public static let blockSize = 64
    /// A SHA-1 digest is 20 bytes.
    public static let digestSize = 20

    private var hash: [UInt32] = SHA1.initialHash
    private var pending: [UInt8] = []
    private var totalLength: UInt64 = 0

    /// Creates a hasher with nothing absorbed yet.
    public init() {}

    /// Absorbs more input.
    /// - Parameter bytes: the next bytes of the message.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes {
            pending.append(byte)
            totalLength &+= 1
            if pending.count == SHA1.blockSize {
                compress(pending[...])
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Pads the message (FIPS 180-4 §5.1.1) and returns the 20-byte digest.
    public consuming func finalize() -> [UInt8] {
        let bitLength = totalLength &* 8
        pending.append(0x80)
        if pending.count > SHA1.blockSize - 8 {
            pending.append(contentsOf: [UInt8](repeating: 0, count: SHA1.blockSize - pending.count))
            compress(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
        pending.append(contentsOf: [UInt8](repeating: 0, count: SHA1.blockSize - 8 - pending.count))
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        compress(pending[...])
        var digest: [UInt8] = []
        digest.reserveCapacity(SHA1.digestSize)
        for word in hash {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Hashes a whole message at once.
    /// - Parameter bytes: the message.
    /// - Returns: its 20-byte SHA-1 digest.
    public static func hash<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// FIPS 180-4 §6.1.2: eighty rounds over a 64-byte block.
    private mutating func compress(_ block: ArraySlice<UInt8>) {
        var schedule = [UInt32](repeating: 0, count: 80)
        var index = block.startIndex
        for t in 0..<16 {
            schedule[t] = UInt32(block[index]) << 24 | UInt32(block[index + 1]) << 16
                | UInt32(block[index + 2]) << 8 | UInt32(block[index + 3])
            index += 4
        }
        for t in 16..<80 {
            schedule[t] = rotl(schedule[t - 3] ^ schedule[t - 8] ^ schedule[t - 14] ^ schedule[t - 16], 1)
        }
        var a = hash[0], b = hash[1], c = hash[2], d = hash[3], e = hash[4]
        for t in 0..<80 {
            let function: UInt32
            let constant: UInt32
            switch t {
            case 0..<20:
                function = (b & c) | (~b & d)
                constant = 0x5a82_7999
            case 20..<40:
                function = b ^ c ^ d
                constant = 0x6ed9_eba1
            case 40..<60:
                function = (b & c) | (b & d) | (c & d)
                constant = 0x8f1b_bcdc
            default:
                function = b ^ c ^ d
                constant = 0xca62_c1d6
            }
            let temp = rotl(a, 5) &+ function &+ e &+ constant &+ schedule[t]
            e = d
            d = c
            c = rotl(b, 30)
            b = a
            a = temp
        }
        hash[0] &+= a
        hash[1] &+= b
        hash[2] &+= c
        hash[3] &+= d
        hash[4] &+= e
    }

    private func rotl(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
