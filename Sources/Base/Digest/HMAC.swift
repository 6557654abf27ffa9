/// A Merkle–Damgård hash with 64-byte blocks (SHA-1, SHA-256), as RFC 2104's HMAC uses it.
protocol BlockHash {
    init()
    mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8
    consuming func finalize() -> [UInt8]
    static func hash<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8
}

extension SHA1: BlockHash {}
extension SHA256: BlockHash {}

/// RFC 2104 over any ``BlockHash``: the one construction behind ``HMACSHA1`` and ``HMACSHA256``.
enum HMAC {
    /// Both hashes here have 64-byte blocks (RFC 3174, FIPS 180-4).
    static let blockSize = 64

    static func authenticationCode<H: BlockHash, K: Collection, M: Sequence>(_ hash: H.Type, key: K, message: M)
        -> [UInt8] where K.Element == UInt8, M.Element == UInt8 {
        // RFC 2104 §2: keys longer than a block are hashed first, then zero-padded to the block.
        var block = key.count > blockSize ? H.hash(key) : Array(key)
        block.append(contentsOf: [UInt8](repeating: 0, count: blockSize - block.count))
        var inner = H()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = H()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
