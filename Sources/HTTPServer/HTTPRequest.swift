import HTTP

/// A whole request as a handler sees it: head, decoded target, route parameters and body.
public struct HTTPRequest: Sendable {
    /// The request line and fields as received.
    public let head: HTTPRequestHead
    /// The decoded path segments and query parameters.
    public let target: HTTPRequestTarget
    /// The route's path parameters: "/v1/streams/{name}" matched by "/v1/streams/show" gives ["name": "show"].
    public let parameters: [String: String]
    /// The body (at most the route's body limit).
    public let body: [UInt8]
    /// The peer's address ("127.0.0.1:50000").
    public let remoteAddress: String
    /// True when the request came over TLS.
    public let isSecure: Bool

    /// Creates a request (the server does; tests of handlers may too).
    public init(head: HTTPRequestHead, target: HTTPRequestTarget, parameters: [String: String] = [:],
                body: [UInt8] = [], remoteAddress: String = "", isSecure: Bool = false) {
        self.head = head
        self.target = target
        self.parameters = parameters
        self.body = body
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
    }

    /// The method.
    public var method: HTTPMethod { head.method }
    /// The header fields.
    public var headers: HTTPHeaders { head.headers }
    /// The decoded path ("/v1/streams/show").
    public var path: String { target.path }

    /// The first query parameter called `name`, decoded.
    public func queryValue(_ name: String) -> String? {
        target.queryValue(name)
    }

    /// The token of an `Authorization: Bearer <token>` field (RFC 6750 §2.1), if there is one.
    public var bearerToken: String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, HTTPHeaders.name(String(parts[0]), matches: "Bearer") else { return nil }
        let token = parts[1].drop { $0 == " " }
        return token.isEmpty ? nil : String(token)
    }
}
