/// An `http://` or `https://` URL of a WHIP endpoint or session, parsed without Foundation.
public struct WHIPURL: Sendable, Hashable, CustomStringConvertible {
    /// Whether TLS is used (`https`).
    public let usesTLS: Bool
    /// The host name or address (IPv6 without brackets).
    public let host: String
    /// The TCP port (80 or 443 when the URL gives none).
    public let port: Int
    /// The path and query, starting with `/`.
    public let target: String

    /// Parses an absolute URL.
    /// - Throws: ``WHIPError`` `.badURL` naming the problem.
    public init(parsing text: String) throws(WHIPError) {
        let lower = text.lowercased()
        let usesTLS: Bool
        if lower.hasPrefix("https://") {
            usesTLS = true
        } else if lower.hasPrefix("http://") {
            usesTLS = false
        } else {
            throw WHIPError(.badURL, "a WHIP URL starts with https:// or http://")
        }
        let rest = text.dropFirst(usesTLS ? 8 : 7)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...].prefix { $0 != "#" })
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else {
            throw WHIPError(.badURL, "a WHIP URL must not carry credentials before the host; pass the token apart")
        }
        var host = Substring(authority)
        var port = usesTLS ? 443 : 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw WHIPError(.badURL, "an unclosed [ in the host") }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else {
                    throw WHIPError(.badURL, "the port must be a number from 1 to 65535")
                }
                port = value
            } else if !after.isEmpty {
                throw WHIPError(.badURL, "unexpected text after the IPv6 address")
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]), (1...65535).contains(value) else {
                throw WHIPError(.badURL, "the port must be a number from 1 to 65535")
            }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw WHIPError(.badURL, "the WHIP URL has no usable host")
        }
        self.usesTLS = usesTLS
        self.host = String(host)
        self.port = port
        self.target = target
    }

    private init(usesTLS: Bool, host: String, port: Int, target: String) {
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
        self.target = target
    }

    /// Resolves a `Location` header against this URL (RFC 9110 §10.2.2: absolute, or a path on the same origin).
    /// - Throws: ``WHIPError`` `.badResponse` for something that is neither.
    public func resolving(_ location: String) throws(WHIPError) -> WHIPURL {
        if location.hasPrefix("/") && !location.hasPrefix("//") {
            return WHIPURL(usesTLS: usesTLS, host: host, port: port, target: location)
        }
        do {
            return try WHIPURL(parsing: location)
        } catch {
            throw WHIPError(.badResponse, "the WHIP endpoint's Location \"\(location.prefix(100))\" is neither a "
                + "path nor an http(s) URL")
        }
    }

    /// The URL as text, query included: what the HTTP client is given, never what is printed.
    public var absoluteString: String {
        origin + target
    }

    /// The URL with its query masked (`https://host/whip?••••`): endpoints put tokens there, so this is what
    /// messages show.
    public var description: String {
        guard let question = target.firstIndex(of: "?") else { return absoluteString }
        return origin + target[..<question] + "?\u{2022}\u{2022}\u{2022}\u{2022}"
    }

    private var origin: String {
        let scheme = usesTLS ? "https" : "http"
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let defaultPort = usesTLS ? 443 : 80
        return "\(scheme)://\(bracketed)" + (port == defaultPort ? "" : ":\(port)")
    }
}
