/// The message schedule shared by the Merkle–Damgård hashes (SHA-1, SHA-256): collects input into 64-byte blocks
/// and pads the last one with 0x80, zeros and the 64-bit big-endian bit length (RFC 3174 §4, FIPS 180-4 §5.1.1).
struct BlockBuffer: Sendable {
    /// Both hashes work on 64-byte blocks.
    static let blockSize = 64

    private var pending: [UInt8] = []
    private var totalLength: UInt64 = 0

    init() {
        pending.reserveCapacity(BlockBuffer.blockSize)
    }

    /// Absorbs `bytes`, calling `compress` with each block as it fills.
    mutating func update<S: Sequence>(_ bytes: S, compress: (ArraySlice<UInt8>) -> Void) where S.Element == UInt8 {
        for byte in bytes {
            pending.append(byte)
            totalLength &+= 1
            if pending.count == BlockBuffer.blockSize {
                compress(pending[...])
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Pads what is left and hands the last one or two blocks to `compress`.
    mutating func finish(compress: (ArraySlice<UInt8>) -> Void) {
        let bitLength = totalLength &* 8
        pending.append(0x80)
        if pending.count > BlockBuffer.blockSize - 8 {
            pending.append(contentsOf: [UInt8](repeating: 0, count: BlockBuffer.blockSize - pending.count))
            compress(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
        pending.append(contentsOf: [UInt8](repeating: 0, count: BlockBuffer.blockSize - 8 - pending.count))
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        compress(pending[...])
        pending.removeAll(keepingCapacity: true)
    }

    /// The big-endian bytes of `words`: the digest of both hashes.
    static func bigEndianBytes(_ words: [UInt32]) -> [UInt8] {
        var digest: [UInt8] = []
        digest.reserveCapacity(words.count * 4)
        for word in words {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// The sixteen big-endian words of a 64-byte block.
    static func words(of block: ArraySlice<UInt8>, into schedule: inout [UInt32]) {
        var index = block.startIndex
        for t in 0..<16 {
            schedule[t] = UInt32(block[index]) << 24 | UInt32(block[index + 1]) << 16
                | UInt32(block[index + 2]) << 8 | UInt32(block[index + 3])
            index += 4
        }
    }
}
