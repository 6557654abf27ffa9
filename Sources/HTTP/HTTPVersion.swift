/// An HTTP/1.x protocol version (RFC 9112 §2.3).
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version (1 for everything this codec speaks).
    public var major: Int
    /// The minor version: 0 or 1.
    public var minor: Int

    /// Creates a version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0: no persistent connections unless asked for, no chunked coding.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// "HTTP/1.1".
    public var description: String { "HTTP/\(major).\(minor)" }
}
