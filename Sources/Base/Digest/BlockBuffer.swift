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

    /// Absorbs `bytes`, calling `compress` with each block as it fills. Contiguous bytes (an array, a slice, a
    /// string's UTF-8) are hashed where they lie, 64 bytes at a time; other sequences go through `pending` byte by
    /// byte.
    mutating func update<S: Sequence>(_ bytes: S, compress: (UnsafeRawBufferPointer) -> Void)
    where S.Element == UInt8 {
        let absorbed: Void? = bytes.withContiguousStorageIfAvailable { contiguous in
            absorb(UnsafeRawBufferPointer(contiguous), compress: compress)
        }
        guard absorbed == nil else { return }
        for byte in bytes {
            pending.append(byte)
            totalLength &+= 1
            if pending.count == BlockBuffer.blockSize { compressPending(compress) }
        }
    }

    private mutating func absorb(_ bytes: UnsafeRawBufferPointer, compress: (UnsafeRawBufferPointer) -> Void) {
        totalLength &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            offset = min(BlockBuffer.blockSize - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<offset])
            guard pending.count == BlockBuffer.blockSize else { return }
            compressPending(compress)
        }
        while bytes.count - offset >= BlockBuffer.blockSize {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + BlockBuffer.blockSize)]))
            offset += BlockBuffer.blockSize
        }
        pending.append(contentsOf: bytes[offset...])
    }

    private mutating func compressPending(_ compress: (UnsafeRawBufferPointer) -> Void) {
        pending.withUnsafeBytes(compress)
        pending.removeAll(keepingCapacity: true)
    }

    /// Pads what is left and hands the last one or two blocks to `compress`.
    mutating func finish(compress: (UnsafeRawBufferPointer) -> Void) {
        let bitLength = totalLength &* 8
        pending.append(0x80)
        if pending.count > BlockBuffer.blockSize - 8 {
            pending.append(contentsOf: repeatElement(0, count: BlockBuffer.blockSize - pending.count))
            compressPending(compress)
        }
        pending.append(contentsOf: repeatElement(0, count: BlockBuffer.blockSize - 8 - pending.count))
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        compressPending(compress)
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
    static func words(of block: UnsafeRawBufferPointer, into schedule: UnsafeMutableBufferPointer<UInt32>) {
        for t in 0..<16 {
            schedule[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
        }
    }
}
