/// HMAC-SHA1 (RFC 2104 with SHA-1): STUN's MESSAGE-INTEGRITY (RFC 8489 §14.5).
public enum HMACSHA1 {
    /// Computes HMAC-SHA1 of a message.
    /// - Parameters:
    ///   - key: the secret key; keys longer than the 64-byte block are hashed first (RFC 2104 §2).
    ///   - message: the authenticated bytes.
    /// - Returns: the 20-byte authentication code.
    public static func authenticationCode<K: Collection, M: Sequence>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        HMAC.authenticationCode(SHA1.self, key: key, message: message)
    }
}
