/// An `http://` or `https://` (or `ws://`, `wss://`) URL split into what a client needs to connect and to write
/// a request line.
public struct HTTPURL: Sendable, Equatable, CustomStringConvertible {
    /// True for https and wss.
    public var usesTLS: Bool
    /// The host name or address, without brackets for IPv6.
    public var host: String
    /// The port (80/443 when the URL has none).
    public var port: Int
    /// The origin-form target: path and query ("/v1/health?x=1"), at least "/".
    public var target: String
    /// The scheme as written, lowercased.
    public var scheme: String

    /// Parses a URL. User information ("user@") is refused: credentials go in headers, never in URLs.
    /// - Returns: nil when it is not an absolute http(s)/ws(s) URL with a host and a valid port.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let scheme = text[..<colon].lowercased()
        switch scheme {
        case "http", "ws": usesTLS = false
        case "https", "wss": usesTLS = true
        default: return nil
        }
        self.scheme = scheme
        var rest = text[colon...].dropFirst(3)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        host = String(hostPart)
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else { return nil }
            port = value
        } else {
            port = usesTLS ? 443 : 80
        }
        target = path.isEmpty ? "/" : (path.hasPrefix("?") ? "/" + path : String(path))
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
    }

    /// The value of a Host field: the host (bracketed for IPv6) and the port unless it is the default.
    public var hostField: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (usesTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// "scheme://host:port/path", with any query shown as "?…": queries may carry tokens, which must not reach a
    /// log or an error message.
    public var description: String {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return "\(scheme)://\(hostField)\(path[0])" + (path.count > 1 ? "?…" : "")
    }
}
