import JSON
import LiveProtocol

/// The JSON form of stream declarations, for `stream serve --shows FILE`:
///
/// ```json
/// {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}"], "users": "viewer",
///               "visitors": "read_only", "reactions": true}]}
/// ```
///
/// `hosts` and `mods` list user ids, where `{name}` stands for what the pattern's parameter captured; `users` is
/// the role of any other signed-in user and `visitors` the role of someone without a token (`viewer`,
/// `read_only` or `none`; defaults `viewer` and `none`). Unknown members are errors (a typo must not silently
/// open a stream to everyone), and every error names its line.
public enum ShowsFile {
    /// The largest file read: thousands of declarations fit in far less.
    public static let maximumSize = 1 << 20

    private static let streamMembers: Set<String> = ["pattern", "hosts", "mods", "users", "visitors", "reactions",
                                                     "title", "description"]
    private static let generalRoles: [Role] = [.viewer, .readOnly, .none]

    /// Reads a shows file's declarations.
    /// - Parameter bytes: the file's contents.
    /// - Returns: the catalog, declarations in file order.
    /// - Throws: ``DeclarationError`` with the line and the reason.
    public static func catalog(from bytes: [UInt8]) throws(DeclarationError) -> StreamCatalog {
        guard bytes.count <= maximumSize else {
            throw DeclarationError("the file is larger than \(maximumSize) bytes", line: 1)
        }
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(bytes)
        } catch {
            throw DeclarationError("not valid JSON: \(error.reason) (column \(error.column))", line: error.line)
        }
        guard let root = document.value.objectValue else {
            throw DeclarationError("the file must hold an object: {\"streams\": [...]}", line: 1)
        }
        for (name, _) in root where name != "streams" {
            throw DeclarationError("unknown member '\(name)': the file holds only \"streams\"",
                                   line: document.line(at: [.key(name)]))
        }
        guard let streams = document.value["streams"]?.arrayValue, !streams.isEmpty else {
            throw DeclarationError("\"streams\" must be a non-empty array of stream declarations",
                                   line: document.line(at: [.key("streams")]))
        }
        var catalog = StreamCatalog()
        for (index, entry) in streams.enumerated() {
            let path: JSONPath = [.key("streams"), .index(index)]
            let declaration = try Entry(entry, path: path, document: document)
            do {
                try catalog.streams(declaration.pattern, role: declaration.rule, options: declaration.options)
            } catch {
                throw DeclarationError(error.reason, line: document.line(at: path + [.key("pattern")]))
            }
        }
        return catalog
    }

    /// One entry of "streams", checked.
    private struct Entry {
        let pattern: String
        let rule: RoleRule
        let options: StreamOptions

        init(_ entry: JSONValue, path: JSONPath, document: JSONDocument) throws(DeclarationError) {
            func failure(_ reason: String, _ member: String? = nil) -> DeclarationError {
                DeclarationError(reason, line: document.line(at: member.map { path + [.key($0)] } ?? path))
            }
            guard let members = entry.objectValue else {
                throw failure("a stream declaration must be an object with a \"pattern\"")
            }
            for (name, _) in members where !ShowsFile.streamMembers.contains(name) {
                throw failure("unknown member '\(name)' (a declaration has "
                              + ShowsFile.streamMembers.sorted().joined(separator: ", ") + ")", name)
            }
            guard let pattern = entry["pattern"]?.stringValue else {
                throw failure("\"pattern\" is missing or not a string", "pattern")
            }
            let parsed: StreamPattern
            do {
                parsed = try StreamPattern(pattern)
            } catch {
                throw failure(error.reason, "pattern")
            }
            let parameters = Set(parsed.parameterNames)
            let hosts = try Self.templates(entry, "hosts", parameters: parameters, failure: failure)
            let mods = try Self.templates(entry, "mods", parameters: parameters, failure: failure)
            let users = try Self.role(entry, "users", default: .viewer, failure: failure)
            let visitors = try Self.role(entry, "visitors", default: .none, failure: failure)
            var reactions = false
            if let value = entry["reactions"] {
                guard let flag = value.boolValue else {
                    throw failure("\"reactions\" must be true or false", "reactions")
                }
                reactions = flag
            }
            let title = try Self.text(entry, "title", limit: StreamOptions.maximumTitleLength, lineFeeds: false,
                                      parameters: parameters, failure: failure)
            let description = try Self.text(entry, "description", limit: StreamOptions.maximumDescriptionLength,
                                            lineFeeds: true, parameters: parameters, failure: failure)
            self.pattern = pattern
            self.options = StreamOptions(reactions: reactions, title: title, description: description)
            self.rule = { user, captured in
                guard let user else { return visitors }
                if hosts.contains(where: { UserID.same($0.expand(captured), user) }) { return .host }
                if mods.contains(where: { UserID.same($0.expand(captured), user) }) { return .mod }
                return users
            }
        }

        /// A title or description: a string of 1 to `limit` code points without control characters (but line
        /// feeds where allowed), whose `{name}`s are the pattern's parameters.
        private static func text(_ entry: JSONValue, _ member: String, limit: Int, lineFeeds: Bool,
                                 parameters: Set<String>, failure: (String, String?) -> DeclarationError)
            throws(DeclarationError) -> String? {
            guard let value = entry[member], !value.isNull else { return nil }
            guard let text = value.stringValue, (1...limit).contains(text.unicodeScalars.count) else {
                throw failure("\"\(member)\" must be a string of 1 to \(limit) characters", member)
            }
            guard !text.unicodeScalars.contains(where: { scalar in
                (scalar != "\n" || !lineFeeds) && scalar.properties.generalCategory == .control
            }) else {
                throw failure("\"\(member)\" cannot hold control characters" + (lineFeeds ? " (only line feeds)" : ""),
                              member)
            }
            do {
                _ = try UserTemplate(text, parameters: parameters)
            } catch {
                throw failure("\"\(member)\": \(error.reason)", member)
            }
            return text
        }

        private static func templates(_ entry: JSONValue, _ member: String, parameters: Set<String>,
                                      failure: (String, String?) -> DeclarationError) throws(DeclarationError)
            -> [UserTemplate] {
            guard let value = entry[member] else { return [] }
            guard let elements = value.arrayValue else {
                throw failure("\"\(member)\" must be an array of user ids", member)
            }
            var templates: [UserTemplate] = []
            for element in elements {
                guard let text = element.stringValue, !text.isEmpty else {
                    throw failure("\"\(member)\" must hold user ids (non-empty strings)", member)
                }
                do {
                    templates.append(try UserTemplate(text, parameters: parameters))
                } catch {
                    throw failure("\"\(member)\": \(error.reason)", member)
                }
            }
            return templates
        }

        private static func role(_ entry: JSONValue, _ member: String, default fallback: Role,
                                 failure: (String, String?) -> DeclarationError) throws(DeclarationError) -> Role {
            guard let value = entry[member] else { return fallback }
            let allowed = ShowsFile.generalRoles.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            guard let text = value.stringValue else {
                throw failure("\"\(member)\" must be a role name: one of \(allowed)", member)
            }
            guard let role = Role(rawValue: text), ShowsFile.generalRoles.contains(role) else {
                throw failure("unknown role '\(text.prefix(40))' for \"\(member)\": one of \(allowed)", member)
            }
            return role
        }
    }
}

/// A user id in a shows file, where `{name}` stands for a captured parameter (`"{id}"`, `"mod-{id}"`).
struct UserTemplate: Sendable {
    private enum Piece: Sendable {
        case text(String)
        case parameter(String)
    }

    private let pieces: [Piece]

    init(_ text: String, parameters: Set<String>) throws(DeclarationError) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw DeclarationError("'\(text)': a '{' is never closed")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard parameters.contains(name) else {
                throw DeclarationError("'\(text)': {\(name)} is not a parameter of the pattern")
            }
            pieces.append(.parameter(name))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    func expand(_ parameters: [String: String]) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .parameter(let name): parameters[name] ?? ""
            }
        }.joined()
    }
}
