/// A declaration that cannot be used: a bad pattern, or a shows file that does not parse or names an unknown role.
/// With a file, `line` says where.
public struct DeclarationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line of the shows file, when the declaration came from one.
    public var line: Int?
    /// What is wrong.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String, line: Int? = nil) {
        self.reason = reason
        self.line = line
    }

    /// "line 4: unknown role 'admin' ..." or the reason alone.
    public var description: String { line.map { "line \($0): \(reason)" } ?? reason }
}
