/// A request's start line and header fields.
public struct HTTPRequestHead: Sendable, Equatable {
    /// The method.
    public var method: HTTPMethod
    /// The request target as sent: "/path?query" (origin-form), or an absolute URL, "*", "host:port".
    public var target: String
    /// The protocol version.
    public var version: HTTPVersion
    /// The header fields.
    public var headers: HTTPHeaders

    /// Creates a request head.
    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// RFC 9112 §9.3: whether the client asks to keep the connection open after the response (HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`).
    public var wantsKeepAlive: Bool {
        if headers.contains("Connection", token: "close") { return false }
        return version.minor >= 1 || headers.contains("Connection", token: "keep-alive")
    }

    /// The target's path and query, decoded; nil when its percent-escapes are malformed.
    public var parsedTarget: HTTPRequestTarget? {
        HTTPRequestTarget(target)
    }

    /// The head as sent on the wire, ending with the empty line.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        HTTPHeaders.append(method.rawValue, to: &bytes)
        bytes.append(HTTPSyntax.space)
        HTTPHeaders.append(target, to: &bytes)
        bytes.append(HTTPSyntax.space)
        version.write(into: &bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
        headers.write(into: &bytes)
        return bytes
    }
}
