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
    }

    /// Matches decoded path segments.
    /// - Returns: the parameters by name (a rest parameter joined with "/"), or nil when the path does not match.
    public func match(_ path: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .parameter(let name):
                guard index < path.count else { return nil }
                parameters[name] = path[index]
            case .rest(let name):
                // An unnamed rest ("{...}") matches without capturing.
                if !name.isEmpty { parameters[name] = path[min(index, path.count)...].joined(separator: "/") }
                return parameters
            }
        }
        return path.count == segments.count ? parameters : nil
    }
}
