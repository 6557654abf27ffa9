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
    public var rawPath: String {
        guard !pathRange.isEmpty else { return "/" }
        return String(decoding: target.utf8.dropFirst(pathRange.lowerBound).prefix(pathRange.count), as: UTF8.self)
    }
    /// The target as sent, and where its path is in it, in UTF-8 offsets (the raw path is made only when asked for).
    private let target: String
    private let pathRange: Range<Int>
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
        // Over the target's contiguous UTF-8 by offset: a request's target is parsed on every request, and the
        // String.UTF8View's index steps and generic searches were 5 % of an LL-HLS server's user time.
        var text = target
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self.target = target
        (pathRange, pathSegments, rawQuery) = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (Range<Int>, [String], String?)? {
        var start = 0
        if let scheme = schemeLength(bytes) {
            start = scheme
            while start < bytes.count && bytes[start] != slash && bytes[start] != question { start += 1 }
        }
        var end = start
        while end < bytes.count && bytes[end] != hash { end += 1 }
        var pathEnd = start
        while pathEnd < end && bytes[pathEnd] != question { pathEnd += 1 }
        var rawQuery: String?
        if pathEnd < end {
            let query = UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)..<end])
            // A query without escapes is valid UTF-8 already (it is a String's): only one with escapes is decoded
            // now, to refuse a malformed one.
            let text = String(decoding: query, as: UTF8.self)
            if query.contains(percent), decodeQuery(text) == nil { return nil }
            rawQuery = text
        }
        var segments: [String] = []
        var segmentStart = start
        var index = start
        while true {
            if index == pathEnd || bytes[index] == slash {
                if index > segmentStart {
                    let segment = UnsafeBufferPointer(rebasing: bytes[segmentStart..<index])
                    guard let decoded = PercentEncoding.decode(segment) else { return nil }
                    // Room for a usual path's segments at once (growing one at a time reallocated twice per request).
                    if segments.isEmpty { segments.reserveCapacity(8) }
                    segments.append(decoded)
                }
                if index == pathEnd { break }
                segmentStart = index + 1
            }
            index += 1
        }
        return (start..<pathEnd, segments, rawQuery)
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
    private static let percent = UInt8(ascii: "%")

    /// The length of "http://" or "https://" (any case) at the start, if there.
    private static func schemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.first != slash else { return nil }
        for scheme in ["http://", "https://"] where bytes.count >= scheme.utf8.count {
            if zip(bytes, scheme.utf8).allSatisfy({ HTTPHeaders.lowercased($0) == $1 }) { return scheme.utf8.count }
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
