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

    /// Appends "HTTP/x.y" (single-digit versions, as HTTP/1.x has).
    func write(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: [0x48, 0x54, 0x54, 0x50, 0x2F])  // "HTTP/"
        bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: major % 10))
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: minor % 10))
    }
}
