import ByteIO

/// A strict JSON parser (RFC 8259) over bytes, with a depth limit and the line and column of every error.
///
/// Strict where leniency hides mistakes: no comments, no trailing commas, no duplicate member names, no lone
/// surrogates, UTF-8 only (a leading byte order mark is skipped), nothing after the value but white space.
/// Numbers that overflow a double are refused rather than read as infinity.
public struct JSONParser {
    /// RFC 8259 §9 lets a parser limit nesting; 64 levels is far beyond any message or file here.
    public static let defaultMaximumDepth = 64

    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var lines: [JSONPath: Int]?
    private var path: JSONPath = []

    private init(_ bytes: [UInt8], maximumDepth: Int, recordLines: Bool) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.lines = recordLines ? [:] : nil
    }

    /// Parses one JSON text.
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - maximumDepth: the most arrays and objects nested in each other.
    /// - Returns: the value.
    /// - Throws: ``JSONError`` with the line, column and reason.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes, maximumDepth: maximumDepth, recordLines: false)
        return try parser.parseText()
    }

    /// Parses one JSON text.
    /// - Parameter text: the text.
    /// - Returns: the value.
    /// - Throws: ``JSONError``.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses a JSON text and remembers the line where each value starts, for messages about a file's meaning
    /// ("line 4: unknown role 'admin'").
    /// - Parameter bytes: the UTF-8 text.
    /// - Returns: the value and its line map.
    /// - Throws: ``JSONError``.
    public static func parseDocument(_ bytes: [UInt8]) throws(JSONError) -> JSONDocument {
        var parser = JSONParser(bytes, maximumDepth: defaultMaximumDepth, recordLines: true)
        let value = try parser.parseText()
        return JSONDocument(value: value, lines: parser.lines ?? [:])
    }

    private mutating func parseText() throws(JSONError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected \(describe(bytes[index])) after the value") }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input: a value was expected") }
        lines?[path] = line
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected \(describe(bytes[index])): a value was expected")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
        index += 1
        var members: [(String, JSONValue)] = []
        var names: Set<String> = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure(index < bytes.count ? "expected a member name in double quotes"
                                                  : "unexpected end of input inside an object")
            }
            let nameColumn = (index, line, lineStart)
            let name = try parseString()
            guard names.insert(name).inserted else {
                index = nameColumn.0
                throw failure("duplicate member name \"\(name.prefix(40))\"")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after the member name \"\(name.prefix(40))\"")
            }
            index += 1
            skipWhitespace()
            path.append(.key(name))
            let value = try parseValue(depth: depth)
            path.removeLast()
            members.append((name, value))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}' in an object") }
            index += 1
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            path.append(.index(elements.count))
            let value = try parseValue(depth: depth)
            path.removeLast()
            elements.append(value)
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']' in an array") }
            index += 1
            return .array(elements)
        }
    }

    /// RFC 8259 §7: a string, with its escapes; raw bytes must be UTF-8 and at least U+0020.
    private mutating func parseString() throws(JSONError) -> String {
        index += 1
        var utf8: [UInt8] = []
        let start = index
        while true {
            guard index < bytes.count else { throw failure("unexpected end of input inside a string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = UTF8Text.validated(utf8) else {
                    index = start
                    throw failure("the string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw failure("control character \(describe(byte)) inside a string (escape it)")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONError) {
        guard index < bytes.count else { throw failure("unexpected end of input in an escape") }
        let byte = bytes[index]
        index += 1
        let simple: UInt8? = switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case UInt8(ascii: "/"): UInt8(ascii: "/")
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let simple {
            utf8.append(simple)
            return
        }
        guard byte == UInt8(ascii: "u") else {
            index -= 1
            throw failure("unknown escape: \(describe(byte)) after a backslash")
        }
        var scalar = try parseHex4()
        if (0xD800..<0xDC00).contains(scalar) {
            // §7: a character outside the BMP is a surrogate pair of two \u escapes.
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw failure("a high surrogate \\u escape without its low surrogate") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else {
                throw failure("a high surrogate \\u escape followed by something other than a low surrogate")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(scalar) {
            throw failure("a lone low surrogate \\u escape")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("an escape that is not a Unicode scalar") }
        utf8.append(contentsOf: String(Character(unicode)).utf8)
    }

    private mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of input in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("\(describe(byte)) is not a hex digit in a \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(JSONError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs a digit here") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number may not start with 0") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a digit must follow '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("an exponent needs a digit") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            index = start
            throw failure("the number \(text.prefix(40)) is too large")
        }
        return number
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONError) {
        let expected = literal.utf8
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw failure("unexpected \(describe(bytes[index])): a value was expected") }
        index += expected.count
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = index
            default:
                return
            }
        }
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private func failure(_ reason: String) -> JSONError {
        JSONError(line: line, column: index - lineStart + 1, reason: reason)
    }
}
