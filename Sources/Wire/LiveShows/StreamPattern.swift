/// A stream-name pattern such as `show:{id}`: literal text with named placeholders, each standing for one or more
/// name characters other than `:` (so `show:{id}` matches `show:mugs` but not `show:a:b`).
///
/// Stream names are 1 to ``maximumNameLength`` characters of `A-Z a-z 0-9 : _ . -`, which keeps them safe in URLs,
/// file names and logs without escaping.
public struct StreamPattern: Sendable, Hashable, CustomStringConvertible {
    /// The longest stream name accepted.
    public static let maximumNameLength = 128

    enum Piece: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    let pieces: [Piece]
    /// The pattern as written.
    public let description: String

    /// Parses a pattern.
    /// - Throws: ``DeclarationError`` for an empty pattern, a character a name cannot hold, an unclosed or empty
    ///   `{}`, a parameter named twice, or two parameters side by side (where one would end is ambiguous).
    public init(_ text: String) throws(DeclarationError) {
        guard !text.isEmpty else { throw DeclarationError("a stream pattern cannot be empty") }
        var pieces: [Piece] = []
        var names: Set<String> = []
        var literal = ""
        var characters = text.makeIterator()
        while let character = characters.next() {
            if character == "{" {
                var name = ""
                var closed = false
                while let inner = characters.next() {
                    if inner == "}" {
                        closed = true
                        break
                    }
                    name.append(inner)
                }
                guard closed else { throw DeclarationError("pattern '\(text)': a '{' is never closed") }
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw DeclarationError("pattern '\(text)': a parameter name is letters, digits and '_', "
                                           + "not '\(name)'")
                }
                guard names.insert(name).inserted else {
                    throw DeclarationError("pattern '\(text)': the parameter {\(name)} appears twice")
                }
                if !literal.isEmpty {
                    pieces.append(.literal(literal))
                    literal = ""
                } else if case .parameter = pieces.last {
                    throw DeclarationError("pattern '\(text)': two parameters side by side need text between them")
                }
                pieces.append(.parameter(name))
            } else {
                guard Self.isNameCharacter(character) else {
                    throw DeclarationError("pattern '\(text)': '\(character)' cannot be in a stream name "
                                           + "(letters, digits, ':', '_', '.', '-')")
                }
                literal.append(character)
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
        self.description = text
    }

    /// The parameter names, in order.
    public var parameterNames: [String] {
        pieces.compactMap { piece in
            if case .parameter(let name) = piece { return name }
            return nil
        }
    }

    /// Matches a stream name.
    /// - Parameter name: the stream name.
    /// - Returns: the captured parameters, or nil when the name does not match (or is not a valid name).
    public func match(_ name: String) -> [String: String]? {
        guard Self.isValidName(name) else { return nil }
        var captured: [String: String] = [:]
        return Self.match(pieces[...], Array(name.utf8)[...], &captured) ? captured : nil
    }

    /// Whether `name` is a valid stream name.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumNameLength && name.allSatisfy(isNameCharacter)
    }

    static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || ":_.-".contains(character))
    }

    /// Backtracking over the pieces: names are at most 128 bytes and patterns short, so this stays cheap.
    private static func match(_ pieces: ArraySlice<Piece>, _ name: ArraySlice<UInt8>,
                              _ captured: inout [String: String]) -> Bool {
        guard let first = pieces.first else { return name.isEmpty }
        switch first {
        case .literal(let text):
            let bytes = Array(text.utf8)
            guard name.starts(with: bytes) else { return false }
            return match(pieces.dropFirst(), name.dropFirst(bytes.count), &captured)
        case .parameter(let parameter):
            var length = 0
            for byte in name {
                guard byte != UInt8(ascii: ":") else { break }
                length += 1
            }
            // Try the longest capture first; a parameter never spans a ':'.
            while length > 0 {
                let value = name.prefix(length)
                if match(pieces.dropFirst(), name.dropFirst(length), &captured) {
                    captured[parameter] = String(decoding: value, as: UTF8.self)
                    return true
                }
                length -= 1
            }
            return false
        }
    }
}
