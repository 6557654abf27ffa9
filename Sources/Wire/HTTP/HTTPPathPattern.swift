/// A route's path pattern: literal segments, `{name}` for one segment and a final `{name...}` for the rest
/// ("/v1/streams/{name}", "/static/{path...}"; `{...}` matches the rest without capturing it).
public struct HTTPPathPattern: Sendable, Equatable, CustomStringConvertible {
    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    private let segments: [Segment]
    /// The pattern as written.
    public let description: String
    /// The names of the parameters, in the order ``values(_:)`` gives their values (an unnamed rest has none).
    public let parameterNames: [String]

    /// Parses a pattern. A `{name...}` segment must be the last one; it matches zero or more segments.
    public init(_ pattern: String) {
        description = pattern
        segments = pattern.split(separator: "/").map { part in
            if part.hasPrefix("{") && part.hasSuffix("...}") {
                return .rest(String(part.dropFirst().dropLast(4)))
            }
            if part.hasPrefix("{") && part.hasSuffix("}") {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
        for (index, segment) in segments.enumerated() {
            if case .rest = segment {
                precondition(index == segments.count - 1, "a {name...} segment must end the pattern: \(pattern)")
            }
        }
        parameterNames = segments.compactMap { segment in
            switch segment {
            case .literal: nil
            case .parameter(let name): name
            case .rest(let name): name.isEmpty ? nil : name
            }
        }
    }

    /// Matches decoded path segments without building a table: the values of the parameters, in the order of
    /// ``parameterNames`` (a router matches every request; the names are the pattern's, shared).
    /// - Returns: the values (a rest parameter joined with "/"), or nil when the path does not match.
    public func values(_ path: [String]) -> [String]? {
        var values: [String] = []
        // By index: enumerated() hands out a copy of each segment (a retain of its text) on every request.
        for index in segments.indices {
            switch segments[index] {
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .parameter:
                guard index < path.count else { return nil }
                if values.isEmpty { values.reserveCapacity(parameterNames.count) }
                values.append(path[index])
            case .rest(let name):
                if !name.isEmpty { values.append(path[min(index, path.count)...].joined(separator: "/")) }
                return values
            }
        }
        return path.count == segments.count ? values : nil
    }
}
