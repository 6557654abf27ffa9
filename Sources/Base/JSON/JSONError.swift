/// Why bytes are not the JSON expected, with the line and column (both from 1) where the parser stopped.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line of the offending byte, from 1.
    public let line: Int
    /// The column of the offending byte (in bytes), from 1.
    public let column: Int
    /// What is wrong there.
    public let reason: String

    /// Creates an error.
    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// "line 3, column 14: expected ':' after an object member name".
    public var description: String { "line \(line), column \(column): \(reason)" }
}
