import HTTP

/// A request to send with ``HTTPClient``.
public struct HTTPClientRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// An absolute http:// or https:// URL.
    public var url: String
    /// Fields to send (`Host`, `Content-Length` and `Connection` are set by the client).
    public var headers: HTTPHeaders
    /// The body (sent with `Content-Length`).
    public var body: [UInt8]
    /// Whether the server may receive it twice without harm, so that it may go on a reused connection (and be sent
    /// again on a new one if that connection turns out closed): true for idempotent methods, and for a POST the
    /// receiver deduplicates (a webhook with its event's id).
    public var mayRepeat: Bool

    /// Creates a request.
    /// - Parameter mayRepeat: see ``mayRepeat``; by default whether the method is idempotent.
    public init(method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                mayRepeat: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.mayRepeat = mayRepeat ?? method.isIdempotent
    }
}

/// A whole response.
public struct HTTPClientResponse: Sendable {
    /// The status line and fields.
    public var head: HTTPResponseHead
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(head: HTTPResponseHead, body: [UInt8]) {
        self.head = head
        self.body = body
    }

    /// The status.
    public var status: HTTPStatus { head.status }
    /// The fields.
    public var headers: HTTPHeaders { head.headers }
    /// The `Location` field (a WHIP resource, a redirect), as sent.
    public var location: String? { head.headers["Location"] }
    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
