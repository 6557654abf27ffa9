/// Header fields in the order received or added (RFC 9110 §5). Names compare case-insensitively; a name may occur
/// more than once.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One field line.
    public struct Field: Sendable, Equatable {
        /// The name as sent (compare with ``HTTPHeaders/name(_:matches:)``).
        public var name: String
        /// The value with surrounding whitespace removed.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// `["Content-Type": "text/plain"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The number of field lines.
    public var count: Int { fields.count }

    /// "Name: value" lines joined with newlines (for logs; never log a header that carries a secret).
    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// The value of the first field called `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { HTTPHeaders.name($0.name, matches: name) }?.value
    }

    /// Every value of the fields called `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { HTTPHeaders.name($0.name, matches: name) }.map(\.value)
    }

    /// The comma-separated list elements of every field called `name` (RFC 9110 §5.6.1), trimmed, empty
    /// elements dropped: `Connection: keep-alive, Upgrade` gives ["keep-alive", "Upgrade"].
    public func listElements(_ name: String) -> [String] {
        values(name).flatMap { value in
            value.split(separator: ",").map { HTTPHeaders.trimmed($0) }.filter { !$0.isEmpty }
        }
    }

    /// True when a field called `name` lists `token` (case-insensitively), e.g. `Connection` lists `close`.
    public func contains(_ name: String, token: String) -> Bool {
        // Without building the list: asked several times for every request.
        for field in fields where HTTPHeaders.name(field.name, matches: name) {
            for element in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                var trimmed = element[...]
                while let first = trimmed.first, first == 0x20 || first == 0x09 { trimmed = trimmed.dropFirst() }
                while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
                if trimmed.count == token.utf8.count,
                   zip(trimmed, token.utf8).allSatisfy({ HTTPHeaders.lowercased($0) == HTTPHeaders.lowercased($1) }) {
                    return true
                }
            }
        }
        return false
    }

    /// How many fields are called `name`.
    public func count(_ name: String) -> Int {
        fields.reduce(0) { $0 + (HTTPHeaders.name($1.name, matches: name) ? 1 : 0) }
    }

    /// True when at least one field is called `name`.
    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPHeaders.name($0.name, matches: name) }
    }

    /// Makes room for `count` fields in all (a response about to get the server's own fields).
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field (keeping any of the same name).
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field called `name` and appends one with `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.name($0.name, matches: name) }
    }

    /// Removes the fields that frame a message (`Content-Length`, `Transfer-Encoding`, `Connection`), which the
    /// server machine sets itself, in one pass.
    /// - Returns: whether a removed `Connection` field asked to close.
    mutating func removeFraming() -> Bool {
        guard fields.contains(where: { Self.isFraming($0.name) }) else { return false }
        let closeRequested = contains("Connection", token: "close")
        fields.removeAll { Self.isFraming($0.name) }
        return closeRequested
    }

    static func isFraming(_ name: String) -> Bool {
        HTTPHeaders.name(name, matches: "Content-Length") || HTTPHeaders.name(name, matches: "Transfer-Encoding")
            || HTTPHeaders.name(name, matches: "Connection")
    }

    /// Appends the field lines ("Name: value" CRLF each) and the empty line that ends the head to a head being
    /// written.
    func write(into bytes: inout [UInt8]) {
        writeFields(into: &bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
    }

    /// Appends the field lines ("Name: value" CRLF each).
    func writeFields(into bytes: inout [UInt8]) {
        for field in fields {
            Self.append(field.name, to: &bytes)
            bytes.append(HTTPSyntax.colon)
            bytes.append(HTTPSyntax.space)
            Self.append(field.value, to: &bytes)
            bytes.append(HTTPSyntax.cr)
            bytes.append(HTTPSyntax.lf)
        }
    }

    /// Appends a string's UTF-8 bytes, copying its storage at once when it is contiguous (native strings are).
    static func append(_ text: String, to bytes: inout [UInt8]) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }

    /// ASCII case-insensitive comparison of field names (or tokens).
    public static func name(_ lhs: String, matches rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        // Over contiguous storage when the strings have it (native strings do): asked many times per request.
        let fast = left.withContiguousStorageIfAvailable { a in
            right.withContiguousStorageIfAvailable { b in
                for index in 0..<a.count where a[index] != b[index] {
                    guard lowercased(a[index]) == lowercased(b[index]) else { return false }
                }
                return true
            }
        }
        if let fast, let result = fast { return result }
        for (a, b) in zip(left, right) where a != b {
            guard lowercased(a) == lowercased(b) else { return false }
        }
        return true
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    static func trimmed(_ text: Substring) -> String {
        var slice = text[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
