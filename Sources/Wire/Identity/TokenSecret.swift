import Digest

/// The shared secret that signs and checks access tokens (HS256) and from which the server derives its other keys.
///
/// Its bytes never appear in a description, so printing one by mistake reveals nothing.
public struct TokenSecret: Sendable, CustomStringConvertible {
    /// RFC 7518 §3.2: an HS256 key must be at least as long as the hash output, 256 bits.
    public static let minimumLength = 32

    /// The key bytes.
    public let bytes: [UInt8]

    /// Creates a secret from key bytes.
    /// - Throws: ``TokenError`` when the key is shorter than 32 bytes.
    public init(_ bytes: [UInt8]) throws(TokenError) {
        guard bytes.count >= Self.minimumLength else {
            throw TokenError(.weakSecret, "the token secret is \(bytes.count) bytes; HS256 needs at least "
                                + "\(Self.minimumLength) (e.g. `openssl rand -hex 32 > FILE`)")
        }
        self.bytes = bytes
    }

    /// Creates a secret from a secret file's contents: trailing white space (the newline an editor or
    /// `openssl rand -hex 32 > FILE` leaves) is not part of the key; everything else is, byte for byte.
    /// - Throws: ``TokenError`` when what remains is shorter than 32 bytes.
    public init(fileContents: [UInt8]) throws(TokenError) {
        var end = fileContents.count
        while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(fileContents[end - 1]) { end -= 1 }
        try self.init(Array(fileContents[..<end]))
    }

    /// A key for one purpose, derived from this secret (HMAC-SHA256 of the purpose's name), so the key that signs
    /// tokens is never used as is for anything else.
    /// - Parameter purpose: what the key is for, e.g. "stream ingest keys".
    /// - Returns: 32 key bytes.
    public func derivedKey(for purpose: String) -> [UInt8] {
        HMACSHA256.authenticationCode(key: bytes, message: Array(purpose.utf8))
    }

    /// Never the key.
    public var description: String { "TokenSecret(\(bytes.count) bytes)" }
}
