import ByteIO
import Digest

/// A short, non-reversible tag for a stream key, for file names and logs.
///
/// A stream key is a secret: logs and recordings carry `#` and the first 8 hex digits of its SHA-256 instead, so
/// two publishes of the same key can be told apart from others without revealing it.
public enum StreamKeyTag {
    /// The tag of `key`, e.g. "#3f2a9c01".
    public static func tag(_ key: String) -> String {
        "#" + Hex.encode(SHA256.hash(Array(key.utf8)).prefix(4))
    }

    /// The length of a ``media(_:app:key:)`` tag in hex digits (128 bits).
    public static let mediaTagLength = 32

    /// The unguessable tag of a publish's media addresses (LL-HLS `/hls/{app}/{tag}/`): HMAC-SHA256 with a key of
    /// the server's own, over the application and the stream key, cut to 128 bits, in lowercase hex. Unlike
    /// ``tag(_:)`` (short, unkeyed: for logs) it cannot be found by trying keys or tags without the server's key.
    public static func media(_ streamKey: String, app: String, key: [UInt8]) -> String {
        let message = Array("stream media tag\n\(app.utf8.count)\n".utf8) + Array(app.utf8) + Array(streamKey.utf8)
        return Hex.encode(HMACSHA256.authenticationCode(key: key, message: message).prefix(mediaTagLength / 2))
    }
}
