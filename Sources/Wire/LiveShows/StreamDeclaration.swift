import LiveProtocol

/// How a stream name's role is decided: from the user id (nil for a visitor without a token) and the parameters
/// the pattern captured.
public typealias RoleRule = @Sendable (_ user: String?, _ parameters: [String: String]) -> Role

/// What a declared stream offers besides chat.
public struct StreamOptions: Sendable, Hashable {
    /// Whether reactions (the fixed ``Reaction`` set) are taken.
    public var reactions: Bool
    /// The show's title (at most ``maximumTitleLength`` code points), where `{name}` stands for what the pattern's
    /// parameter captured; nil: none.
    public var title: String?
    /// The show's description (at most ``maximumDescriptionLength`` code points, line feeds allowed), `{name}` as in
    /// the title; nil: none.
    public var description: String?

    /// The longest title, in code points.
    public static let maximumTitleLength = 120
    /// The longest description, in code points.
    public static let maximumDescriptionLength = 1000

    /// Creates options.
    public init(reactions: Bool = false, title: String? = nil, description: String? = nil) {
        self.reactions = reactions
        self.title = title
        self.description = description
    }

    /// `text` with each `{name}` replaced by what the parameter captured (unknown names are left as they are).
    public static func expand(_ text: String, _ parameters: [String: String]) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            result += parameters[name] ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}

/// One declared family of streams: a pattern, the rule that gives each person a role, and options.
public struct StreamDeclaration: Sendable {
    /// The pattern, e.g. `show:{id}`.
    public let pattern: StreamPattern
    /// The role rule.
    public let role: RoleRule
    /// The options.
    public let options: StreamOptions

    /// Creates a declaration.
    public init(pattern: StreamPattern, role: @escaping RoleRule, options: StreamOptions = StreamOptions()) {
        self.pattern = pattern
        self.role = role
        self.options = options
    }
}

/// Every stream a server offers, by pattern, as the seed declares them:
/// ```swift
/// try catalog.streams("show:{id}", role: { user, _ in user == "ann" ? .host : .viewer },
///                     options: StreamOptions(reactions: true))
/// ```
///
/// A name is served by the first declaration whose pattern matches it; a name none matches is `not_found`.
public struct StreamCatalog: Sendable {
    /// The declarations, in the order they are tried.
    public private(set) var declarations: [StreamDeclaration] = []

    /// Creates an empty catalog.
    public init() {}

    /// Declares streams by pattern.
    /// - Parameters:
    ///   - pattern: e.g. `show:{id}`.
    ///   - role: the role of a user (nil: a visitor) in a stream matching the pattern, given its parameters.
    ///   - options: reactions.
    /// - Throws: ``DeclarationError`` when the pattern is malformed or already declared.
    public mutating func streams(_ pattern: String, role: @escaping RoleRule,
                                 options: StreamOptions = StreamOptions()) throws(DeclarationError) {
        let parsed = try StreamPattern(pattern)
        guard !declarations.contains(where: { $0.pattern == parsed }) else {
            throw DeclarationError("the pattern '\(pattern)' is declared twice")
        }
        declarations.append(StreamDeclaration(pattern: parsed, role: role, options: options))
    }

    /// The declaration serving a stream name, and the parameters its pattern captured.
    /// - Parameter name: the stream name.
    /// - Returns: nil when no pattern matches (`not_found`).
    public func resolve(_ name: String) -> (declaration: StreamDeclaration, parameters: [String: String])? {
        for declaration in declarations {
            if let parameters = declaration.pattern.match(name) { return (declaration, parameters) }
        }
        return nil
    }
}
