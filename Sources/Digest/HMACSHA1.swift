/// HMAC-SHA1 (RFC 2104 with SHA-1): STUN's MESSAGE-INTEGRITY (RFC 8489 §14.5).
public enum HMACSHA1 {
    /// SHA-1's block size, which RFC 2104's key padding uses.
    private static let blockSize = 64

    /// Computes HMAC-SHA1 of a message.
    /// - Parameters:
    ///   - key: the secret key; keys longer than the 64-byte block are hashed first (RFC 2104 §2).
    ///   - message: the authenticated bytes.
    /// - Returns: the 20-byte authentication code.
    public static func authenticationCode<K: Collection, M: Sequence>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        var block = key.count > blockSize ? SHA1.hash(key) : Array(key)
        block.append(contentsOf: [UInt8](repeating: 0, count: blockSize - block.count))
        var inner = SHA1()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA1()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
