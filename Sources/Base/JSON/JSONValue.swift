/// A JSON value (RFC 8259), as parsed or about to be written.
///
/// Objects keep their members in order, so what is written reads in the order it was built (the protocol's
/// examples in `docs/live-protocol.md` are byte for byte what the server sends). Numbers are `Double`, which holds
/// every integer up to 2^53 exactly, as JavaScript peers do.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in order. The parser refuses duplicate names, so names are unique.
    case object([(String, JSONValue)])

    /// Equal values: objects compare member by member, in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)):
            left.count == right.count && zip(left, right).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.null, _), (.bool, _), (.number, _), (.string, _), (.array, _), (.object, _): false
        }
    }

    /// The member named `name` of an object; nil for a missing member or a value that is not an object.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == name }?.1
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The number as an integer, if it is a whole number within ±2^53 (the integers a double holds exactly).
    public var integerValue: Int64? {
        guard case .number(let number) = self, number.rounded(.towardZero) == number,
              abs(number) <= 9_007_199_254_740_992 else { return nil }
        return Int64(number)
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the value's JSON type, for error messages ("expected a string, found an array").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// An integer number.
    public static func integer<I: BinaryInteger>(_ value: I) -> JSONValue {
        .number(Double(value))
    }

    /// A string, or `null` for nil.
    public static func optional(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }
}
