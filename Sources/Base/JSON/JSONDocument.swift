/// One step into a JSON value: an object member's name or an array element's position.
public enum JSONPathComponent: Sendable, Hashable, CustomStringConvertible {
    /// A member of an object.
    case key(String)
    /// An element of an array, from 0.
    case index(Int)

    /// `.name` or `[3]`.
    public var description: String {
        switch self {
        case .key(let name): ".\(name)"
        case .index(let position): "[\(position)]"
        }
    }
}

/// Where a value sits in a document, from its root.
public typealias JSONPath = [JSONPathComponent]

/// A parsed JSON file that remembers on which line each value starts, so checks of its meaning can name the line.
public struct JSONDocument: Sendable {
    /// The root value.
    public let value: JSONValue
    private let lines: [JSONPath: Int]

    init(value: JSONValue, lines: [JSONPath: Int]) {
        self.value = value
        self.lines = lines
    }

    /// The line where the value at `path` starts; for a path that is not there, the line of its nearest ancestor.
    public func line(at path: JSONPath) -> Int {
        var prefix = path
        while true {
            if let line = lines[prefix] { return line }
            if prefix.isEmpty { return 1 }
            prefix.removeLast()
        }
    }
}
