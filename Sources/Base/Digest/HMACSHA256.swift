/// HMAC-SHA256 (RFC 2104 with SHA-256), used by the digest ("Flash") variant of the RTMP handshake.
public enum HMACSHA256 {
    /// Computes HMAC-SHA256 of a message.
    /// - Parameters:
    ///   - key: the secret key; keys longer than the 64-byte block are hashed first (RFC 2104 §2).
    ///   - message: the authenticated bytes.
    /// - Returns: the 32-byte authentication code.
    public static func authenticationCode<K: Collection, M: Sequence>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        HMAC.authenticationCode(SHA256.self, key: key, message: message)
    }
}
