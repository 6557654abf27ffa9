/// The WebSocket URL of a stream from the server's base URL: `http://h:p` → `ws://h:p/v1/streams/{name}`.
public enum StreamAddress {
    /// The longest stream name (docs/live-protocol.md).
    public static let maximumNameLength = 128

    /// Builds the URL.
    /// - Throws: ``LiveStreamError/invalid(_:)`` for a URL that is not http(s) or ws(s), or a malformed name.
    public static func webSocketURL(server: String, stream name: String) throws(LiveStreamError) -> String {
        guard (1...maximumNameLength).contains(name.count),
              name.unicodeScalars.allSatisfy({ isAlphanumeric($0) || ":_.-".unicodeScalars.contains($0) })
        else {
            throw .invalid("'\(name.prefix(40))' is not a stream name: 1 to 128 of A-Z a-z 0-9 : _ . -")
        }
        var base = Substring(server)
        let schemes: [(String, String)] = [("http://", "ws://"), ("https://", "wss://"), ("ws://", "ws://"),
                                           ("wss://", "wss://")]
        guard let (from, to) = schemes.first(where: { base.lowercased().hasPrefix($0.0) }) else {
            throw .invalid("the server URL must start with http://, https://, ws:// or wss://")
        }
        base = base.dropFirst(from.count)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard !base.isEmpty, !base.contains("?"), !base.contains("#") else {
            throw .invalid("the server URL has no host, or has a query")
        }
        return to + base + "/v1/streams/" + name
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
