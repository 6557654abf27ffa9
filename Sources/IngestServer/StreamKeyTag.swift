import Digest

/// A short, non-reversible tag for a stream key, for file names and logs.
///
/// A stream key is a secret: logs and recordings carry `#` and the first 8 hex digits of its SHA-256 instead, so
/// two publishes of the same key can be told apart from others without revealing it.
public enum StreamKeyTag {
    /// The tag of `key`, e.g. "#3f2a9c01".
    public static func tag(_ key: String) -> String {
        let digest = SHA256.hash(Array(key.utf8))
        let hex = digest.prefix(4).map { byte -> String in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        return "#" + hex.joined()
    }
}
