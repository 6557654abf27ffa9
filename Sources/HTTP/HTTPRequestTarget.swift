/// A request target split into its decoded path segments and query parameters.
///
/// Segments are decoded one by one, so an encoded slash (`%2F`) stays inside its segment instead of adding one.
public struct HTTPRequestTarget: Sendable, Equatable {
    /// One `name=value` pair of the query, decoded (`+` is a space).
    public struct QueryItem: Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value; empty for a bare `name`.
        public var value: String

        /// Creates an item.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The path as sent, still encoded ("/v1/streams/a%20b").
    public let rawPath: String
    /// The decoded path segments: "/v1/streams/a%20b" gives ["v1", "streams", "a b"]; "/" gives [].
    public let pathSegments: [String]
    /// The query as sent, without "?" (nil when there is none).
    public let rawQuery: String?
    /// The decoded query parameters, in order.
    public let queryItems: [QueryItem]

    /// Parses an origin-form target ("/path?query") or the path and query of an absolute-form one.
    /// - Returns: nil when an escape is malformed or decodes to bytes that are not UTF-8.
    public init?(_ target: String) {
        var rest = Substring(target)
        let lowered = target.prefix(8).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            rest = rest.dropFirst(lowered.hasPrefix("https") ? 8 : 7)
            rest = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? ""
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let path: Substring
        if let question = rest.firstIndex(of: "?") {
            path = rest[..<question]
            rawQuery = String(rest[rest.index(after: question)...])
        } else {
            path = rest
            rawQuery = nil
        }
        rawPath = path.isEmpty ? "/" : String(path)
        var segments: [String] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = PercentEncoding.decode(segment) else { return nil }
            segments.append(decoded)
        }
        pathSegments = segments
        var items: [QueryItem] = []
        for pair in (rawQuery ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusIsSpace: true),
                  let value = PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusIsSpace: true) else {
                return nil
            }
            items.append(QueryItem(name: name, value: value))
        }
        queryItems = items
    }

    /// The decoded path ("/" + segments joined by "/"). An encoded slash inside a segment is a plain "/" here:
    /// route on ``pathSegments``.
    public var path: String { "/" + pathSegments.joined(separator: "/") }

    /// The value of the first query parameter called `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
