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
    public var rawPath: String { pathRange.isEmpty ? "/" : String(Substring(target.utf8[pathRange])) }
    /// The target as sent, and where its path is in it (the raw path is made only when asked for).
    private let target: String
    private let pathRange: Range<String.Index>
    /// The decoded path segments: "/v1/streams/a%20b" gives ["v1", "streams", "a b"]; "/" gives [].
    public let pathSegments: [String]
    /// The query as sent, without "?" (nil when there is none).
    public let rawQuery: String?
    /// The decoded query parameters, in order. Decoded when asked for (most routes never ask: an LL-HLS origin
    /// reads two numbers from ``rawQuery`` itself); the escapes were checked when the target was parsed.
    public var queryItems: [QueryItem] { Self.decodeQuery(rawQuery) ?? [] }

    /// Parses an origin-form target ("/path?query") or the path and query of an absolute-form one.
    /// - Returns: nil when an escape is malformed or decodes to bytes that are not UTF-8.
    public init?(_ target: String) {
        // Byte by byte over the UTF-8 view: a request's target is parsed on every request.
        let utf8 = target.utf8
        var start = utf8.startIndex
        if let scheme = Self.schemeLength(utf8) {
            start = utf8.index(start, offsetBy: scheme)
            start = utf8[start...].firstIndex { $0 == Self.slash || $0 == Self.question } ?? utf8.endIndex
        }
        let end = utf8[start...].firstIndex(of: Self.hash) ?? utf8.endIndex
        let question = utf8[start..<end].firstIndex(of: Self.question)
        let pathEnd = question ?? end
        self.target = target
        pathRange = start..<pathEnd
        rawQuery = question.map { String(Substring(utf8[utf8.index(after: $0)..<end])) }
        var segments: [String] = []
        var segmentStart = start
        var index = start
        while true {
            if index == pathEnd || utf8[index] == Self.slash {
                if index > segmentStart {
                    let segment = Substring(utf8[segmentStart..<index])
                    guard let decoded = PercentEncoding.decode(segment) else { return nil }
                    // Room for a usual path's segments at once (growing one at a time reallocated twice per request).
                    if segments.isEmpty { segments.reserveCapacity(8) }
                    segments.append(decoded)
                }
                if index == pathEnd { break }
                segmentStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        pathSegments = segments
        // A query without escapes is valid UTF-8 already (it is a String's): only one with escapes is decoded now,
        // to refuse a malformed one as before.
        if let rawQuery, rawQuery.utf8.contains(UInt8(ascii: "%")), Self.decodeQuery(rawQuery) == nil { return nil }
    }

    /// The query's `name=value` pairs, decoded; nil when an escape is malformed or decodes to bytes that are not
    /// UTF-8.
    private static func decodeQuery(_ query: String?) -> [QueryItem]? {
        var items: [QueryItem] = []
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusIsSpace: true),
                  let value = PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusIsSpace: true) else {
                return nil
            }
            items.append(QueryItem(name: name, value: value))
        }
        return items
    }

    private static let slash = UInt8(ascii: "/")
    private static let question = UInt8(ascii: "?")
    private static let hash = UInt8(ascii: "#")

    /// The length of "http://" or "https://" (any case) at the start, if there.
    private static func schemeLength(_ utf8: String.UTF8View) -> Int? {
        guard utf8.first != slash else { return nil }
        for scheme in ["http://", "https://"] where utf8.count >= scheme.utf8.count {
            if zip(utf8, scheme.utf8).allSatisfy({ HTTPHeaders.lowercased($0) == $1 }) { return scheme.utf8.count }
        }
        return nil
    }

    /// The decoded path ("/" + segments joined by "/"). An encoded slash inside a segment is a plain "/" here:
    /// route on ``pathSegments``.
    public var path: String { "/" + pathSegments.joined(separator: "/") }

    /// The value of the first query parameter called `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
