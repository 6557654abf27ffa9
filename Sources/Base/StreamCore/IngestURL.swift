/// An RTMP or RTMPS server address as a user pastes it: scheme, host, port and application path; or a WHIP
/// endpoint (`https://`, `http://`), whose path is then the "application" and whose bearer token takes the stream
/// key's place in ``StreamCredentials``.
///
/// The stream key is never part of it: it is sent with `publish`, not in the connect URL. If a pasted URL ends
/// with something that looks like a key, it is *not* guessed away: the whole path stays the application
/// (`rtmp://host/live/abc123` has app `live/abc123`), because paths with an instance (`live/xyz`) are legitimate
/// and guessing wrong would silently publish to the wrong place.
public struct IngestURL: Sendable, Equatable, CustomStringConvertible {
    /// The protocol spoken to the server.
    public enum Scheme: String, Sendable, Equatable, CaseIterable {
        /// RTMP over plain TCP.
        case rtmp
        /// RTMP over TLS.
        case rtmps
        /// A WHIP endpoint over plain HTTP (RFC 9725).
        case http
        /// A WHIP endpoint over HTTPS.
        case https

        /// The port used when the URL names none: 1935 for RTMP, 443 for RTMPS and HTTPS, 80 for HTTP.
        public var defaultPort: Int {
            switch self {
            case .rtmp: return 1935
            case .rtmps, .https: return 443
            case .http: return 80
            }
        }

        /// Whether the connection is wrapped in TLS.
        public var usesTLS: Bool { self == .rtmps || self == .https }

        /// Whether this is a WHIP (WebRTC) endpoint rather than an RTMP ingest.
        public var isWHIP: Bool { self == .http || self == .https }
    }

    /// `rtmp` or `rtmps`.
    public let scheme: Scheme
    /// The host name or address, without brackets for IPv6.
    public let host: String
    /// The TCP port (the scheme's default when the URL gives none).
    public let port: Int
    /// The application path without leading or trailing slashes, e.g. `live` or `live/xyz`, query kept intact:
    /// it is sent as `connect`'s `app` as is, as ffmpeg and librtmp (OBS) send it, so that nginx-rtmp's
    /// callbacks see the query as arguments.
    public let app: String

    /// The application name without the query (`live` for `live?token=t1`): what the server files the stream
    /// under, as nginx-rtmp and our own server derive it.
    public var appName: String {
        String(app.prefix { $0 != "?" })
    }

    /// The query after `?` (`token=t1`), nil when there is none. Ingests put tokens there: it stays in `tcUrl`
    /// and `app` on the wire, and is masked in every description.
    public var query: String? {
        app.firstIndex(of: "?").map { String(app[app.index(after: $0)...]) }
    }

    /// Whether the connection is wrapped in TLS (`rtmps`).
    public var usesTLS: Bool { scheme.usesTLS }

    /// Whether the port is the scheme's default.
    public var usesDefaultPort: Bool { port == scheme.defaultPort }

    /// The host as written in a URL: IPv6 addresses in brackets.
    public var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

    /// The `tcUrl` sent in `connect`: `scheme://host[:port]/app`, the port only when it is not the default, and
    /// the query kept (ingests that put a token in the query read it from here).
    public var tcUrl: String {
        let portPart = usesDefaultPort ? "" : ":\(port)"
        return "\(scheme.rawValue)://\(hostForURL)\(portPart)/\(app)"
    }

    /// The `tcUrl` with its query masked (`rtmp://host/live?••••`): the query may hold a token, so it never
    /// reaches a log or a message. It never contains a stream key.
    public var description: String {
        guard query != nil else { return tcUrl }
        let portPart = usesDefaultPort ? "" : ":\(port)"
        return "\(scheme.rawValue)://\(hostForURL)\(portPart)/\(appName)?\(Redaction.mask)"
    }

    /// Creates a URL from parts.
    /// - Parameters:
    ///   - scheme: `rtmp` or `rtmps`.
    ///   - host: host name or address (IPv6 without brackets).
    ///   - port: the port, or nil for the scheme's default.
    ///   - app: the application path without leading slash.
    public init(scheme: Scheme, host: String, port: Int? = nil, app: String) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
        self.app = app
    }

    /// Parses what a user pasted.
    ///
    /// Leading and trailing whitespace is ignored; the scheme is case-insensitive; trailing slashes after the
    /// application are dropped (`rtmps://host:443/rtmp/` → app `rtmp`).
    /// - Parameter text: e.g. `rtmps://live.restream.io/live` or `rtmp://10.0.0.2:1936/live/xyz`.
    /// - Throws: `IngestURLError` naming what is wrong.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { throw IngestURLError(.empty) }
        guard !trimmed.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw IngestURLError(.invalidCharacter)
        }
        guard let schemeEnd = trimmed.firstRange(of: "://") else { throw IngestURLError(.missingScheme) }
        let schemeText = String(trimmed[..<schemeEnd.lowerBound]).lowercased()
        guard !schemeText.isEmpty else { throw IngestURLError(.missingScheme) }
        guard let scheme = Scheme(rawValue: schemeText) else { throw IngestURLError(.unsupportedScheme(schemeText)) }
        let rest = trimmed[schemeEnd.upperBound...]
        guard !rest.contains("#") else { throw IngestURLError(.fragmentNotAllowed) }

        let authority: Substring
        let path: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else if let question = rest.firstIndex(of: "?") {
            authority = rest[..<question]
            path = ""
        } else {
            authority = rest
            path = ""
        }
        guard !authority.contains("@") else { throw IngestURLError(.userInfoNotAllowed) }
        let (host, port) = try Self.parseAuthority(authority, scheme: scheme)

        var app = path
        while app.hasSuffix("/") { app = app.dropLast() }
        guard !app.isEmpty, !app.hasPrefix("?") else { throw IngestURLError(.emptyApp) }
        let pathPart = app.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard !pathPart.isEmpty, !pathPart.hasPrefix("/") else { throw IngestURLError(.emptyApp) }
        guard !pathPart.contains("//") else { throw IngestURLError(.emptyPathSegment) }

        self.init(scheme: scheme, host: host, port: port, app: String(app))
    }

    /// A description safe for logs: the `tcUrl` with its query masked, followed by a masked key
    /// (`rtmps://host/app/••••`).
    ///
    /// If the key was pasted into the URL itself, it is masked there too.
    /// - Parameter streamKey: the key that will be published, or nil when none is set.
    /// - Returns: ``description``, plus `/••••` when a non-empty key is given.
    public func redactedDescription(streamKey: String?) -> String {
        guard let streamKey, !streamKey.isEmpty else { return description }
        return Redaction.redact(description, secrets: [streamKey]) + "/" + Redaction.mask
    }

    private static func parseAuthority(_ authority: Substring, scheme: Scheme) throws -> (String, Int) {
        guard !authority.isEmpty else { throw IngestURLError(.missingHost) }
        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw IngestURLError(.invalidHost) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                throw IngestURLError(.invalidHost)
            }
            // Brackets hold an IPv6 literal (RFC 3986 §3.2.2), which always has colons; without one the tcUrl
            // would be written unbracketed and no longer parse.
            guard host.contains(":"),
                  host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
                throw IngestURLError(.invalidHost)
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw IngestURLError(.invalidHost) }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !host.isEmpty else { throw IngestURLError(.missingHost) }
            let isHostCharacter: (Character) -> Bool = {
                $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_")
            }
            guard host.allSatisfy(isHostCharacter), !host.hasPrefix("."), !host.hasPrefix("-")
            else { throw IngestURLError(.invalidHost) }
        }
        guard let portText else { return (host.lowercased(), scheme.defaultPort) }
        // Only a numeric port is echoed back: anything else might be part of a pasted secret.
        let isNumeric = !portText.isEmpty && portText.allSatisfy { $0.isASCII && $0.isNumber }
        guard isNumeric else { throw IngestURLError(.invalidPort(portText.isEmpty ? "(empty)" : "(not a number)")) }
        guard portText.count <= 5, let port = Int(portText), (1...65_535).contains(port) else {
            throw IngestURLError(.invalidPort(String(portText.prefix(12))))
        }
        return (host.lowercased(), port)
    }
}

extension String {
    /// The string without leading and trailing ASCII whitespace and newlines (standard library only).
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
