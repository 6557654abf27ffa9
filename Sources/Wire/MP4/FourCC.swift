/// A four-character code: the type of an ISO BMFF box, a brand, a handler or a sample entry (ISO/IEC 14496-12 §4.2).
public struct FourCC: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The four bytes, in order.
    public let bytes: [UInt8]

    /// Creates a code from four ASCII characters, e.g. "moof".
    /// - Precondition: exactly four ASCII characters (the codes this module writes are literals).
    public init(_ text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.count == 4 && bytes.allSatisfy { $0 < 0x80 }, "a four-character code, not '\(text)'")
        self.bytes = bytes
    }

    /// Creates a code from a literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The code as text.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
}
