/// A published stream as its LL-HLS address names it: `/hls/{app}/{tag}/`, where `tag` is the stream key's one-way
/// tag (the 8 hex digits that recordings and logs use), never the key.
public struct HLSStreamID: Sendable, Hashable, CustomStringConvertible {
    /// The RTMP application ("live").
    public let app: String
    /// The key's tag: 8 lowercase hex digits.
    public let tag: String

    /// Creates an ID; nil unless `app` is 1–64 letters, digits, `-` or `_`, and `tag` is 8 lowercase hex digits
    /// (a `#` before them, as logs write tags, is dropped).
    public init?(app: String, tag: String) {
        let tag = tag.hasPrefix("#") ? String(tag.dropFirst()) : tag
        guard (1...64).contains(app.utf8.count),
              app.utf8.allSatisfy({ Self.isName($0) }),
              tag.utf8.count == 8,
              tag.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        self.app = app
        self.tag = tag
    }

    private static func isName(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x2D || byte == 0x5F
    }

    /// The path of the stream's directory, with a trailing slash: "/hls/live/3f2a9c01/".
    public var path: String { "/hls/\(app)/\(tag)/" }

    /// "live/3f2a9c01".
    public var description: String { "\(app)/\(tag)" }
}
