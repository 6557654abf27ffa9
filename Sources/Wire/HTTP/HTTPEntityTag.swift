/// An entity tag (RFC 9110 §8.8.3): `"opaque"` or `W/"opaque"`, for `ETag`, `If-None-Match` and `If-Range`.
public struct HTTPEntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The characters between the quotes.
    public var opaque: String
    /// A weak tag (`W/`): equal content, not necessarily equal bytes.
    public var isWeak: Bool

    /// Creates a tag; `opaque` must not contain `"`.
    public init(_ opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// As sent in a field: `"abc"` or `W/"abc"`.
    public var description: String {
        var text = isWeak ? "W/\"" : "\""
        text.reserveCapacity(opaque.utf8.count + 4)
        text += opaque
        text += "\""
        return text
    }

    /// RFC 9110 §8.8.3.2 weak comparison: the opaque parts match, either may be weak (If-None-Match).
    public func weaklyMatches(_ other: HTTPEntityTag) -> Bool { opaque == other.opaque }

    /// Strong comparison: both strong and equal (If-Range).
    public func stronglyMatches(_ other: HTTPEntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }

    /// Parses one tag; nil when it is not one.
    public init?(parsing text: Substring) {
        var rest = Substring(HTTPHeaders.trimmed(text))
        let weak = rest.hasPrefix("W/")
        if weak { rest = rest.dropFirst(2) }
        guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return nil }
        let opaque = rest.dropFirst().dropLast()
        guard !opaque.contains("\"") else { return nil }
        self.init(String(opaque), isWeak: weak)
    }

    /// RFC 9110 §13.1.2: whether an `If-None-Match` value matches `tag` ("*" matches any).
    /// - Returns: true when the condition is false, i.e. a GET should be answered 304 Not Modified.
    public static func ifNoneMatch(_ value: String, matches tag: HTTPEntityTag) -> Bool {
        if HTTPHeaders.trimmed(Substring(value)) == "*" { return true }
        return value.split(separator: ",").contains { element in
            HTTPEntityTag(parsing: element).map { $0.weaklyMatches(tag) } ?? false
        }
    }
}
