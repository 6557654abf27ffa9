/// An HTTP request the WHIP exchange wants sent; the HTTP client carries it.
public struct WHIPRequest: Sendable, Hashable, CustomStringConvertible {
    /// `POST` or `DELETE`.
    public var method: String
    /// Where to send it.
    public var url: WHIPURL
    /// Header fields in order (the token is in `Authorization`).
    public var headers: [(name: String, value: String)]
    /// The body (the offer for a POST).
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, url: WHIPURL, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// `POST https://host/whip (1234 bytes)`: never the headers, so never the token.
    public var description: String { "\(method) \(url) (\(body.count) bytes)" }

    public static func == (lhs: WHIPRequest, rhs: WHIPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map { $0.name + ":" + $0.value } == rhs.headers.map { $0.name + ":" + $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
    }
}

/// An HTTP response as the WHIP exchange reads it.
public struct WHIPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    public static func == (lhs: WHIPResponse, rhs: WHIPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map { $0.name + ":" + $0.value } == rhs.headers.map { $0.name + ":" + $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(body)
    }
}
