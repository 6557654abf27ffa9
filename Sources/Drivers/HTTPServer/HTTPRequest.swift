import HTTP

/// A whole request as a handler sees it: head, decoded target, route parameters and body.
public struct HTTPRequest: Sendable {
    /// The request line and fields as received.
    public let head: HTTPRequestHead
    /// The decoded path segments and query parameters.
    public let target: HTTPRequestTarget
    /// The route's path parameters: "/v1/streams/{name}" matched by "/v1/streams/show" gives ["name": "show"].
    public let parameters: HTTPRouteParameters
    /// The body (at most the route's body limit).
    public let body: [UInt8]
    /// The peer's address ("127.0.0.1:50000").
    public let remoteAddress: String
    /// True when the request came over TLS.
    public let isSecure: Bool

    /// Creates a request (the server does; tests of handlers may too).
    public init(head: HTTPRequestHead, target: HTTPRequestTarget, parameters: HTTPRouteParameters = [:],
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

/// A route's path parameters by name: the pattern's names (shared by every request of the route) and the request's
/// values, side by side. A router matches every request, and a table per request cost more than the request's own
/// handling of an LL-HLS part.
public struct HTTPRouteParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private let names: [String]
    private let values: [String]

    init(names: [String], values: [String]) {
        precondition(names.count == values.count, "a value for each parameter name")
        self.names = names
        self.values = values
    }

    /// `["name": "show"]` (tests of handlers).
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(names: elements.map(\.0), values: elements.map(\.1))
    }

    /// The value of the parameter called `name` (the last one if a pattern names it twice).
    public subscript(name: String) -> String? {
        names.lastIndex(of: name).map { values[$0] }
    }

    /// The parameters as a table.
    public var dictionary: [String: String] {
        Dictionary(zip(names, values)) { _, last in last }
    }

    public static func == (lhs: HTTPRouteParameters, rhs: HTTPRouteParameters) -> Bool {
        lhs.dictionary == rhs.dictionary
    }
}
