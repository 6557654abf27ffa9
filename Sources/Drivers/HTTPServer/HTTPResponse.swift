import HTTP

/// What a handler answers: status, fields and a body. The server adds `Date`, `Server`, `Content-Length` or
/// `Transfer-Encoding`, and `Connection`.
public struct HTTPResponse: Sendable {
    /// Where the body comes from.
    public enum Body: Sendable {
        /// Bytes known in full (sent with `Content-Length`).
        case bytes([UInt8])
        /// Bytes produced while the response is sent (chunked): the closure writes them as they come (an LL-HLS
        /// part as it is produced) and returns when the body is complete. Writes wait while the client reads
        /// slowly. If the closure throws, the connection is closed (the client sees a truncated body).
        case stream(@Sendable (HTTPBodyWriter) async throws -> Void)
        /// A byte range of a file, read as the client takes it (see ``HTTPResponse/file(at:for:contentType:)``).
        case file(HTTPFileBody)
    }

    /// The status.
    public var status: HTTPStatus
    /// The fields.
    public var headers: HTTPHeaders
    /// Fields encoded beforehand, sent before ``headers``: a handler answering many requests with the same fields
    /// encodes them once (see ``HTTPEncodedFields``).
    public var encodedFields: HTTPEncodedFields
    /// The body.
    public var body: Body

    /// Creates a response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.encodedFields = .none
        self.body = body
    }

    /// Creates a response whose fields were encoded beforehand.
    public init(status: HTTPStatus = .ok, encodedFields: HTTPEncodedFields, body: Body = .bytes([])) {
        self.status = status
        self.headers = [:]
        self.encodedFields = encodedFields
        self.body = body
    }

    /// A text response (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
                     body: .bytes(Array(text.utf8)))
    }

    /// A JSON response from encoded bytes (`application/json`).
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(bytes))
    }

    /// A JSON response from text.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        json(Array(text.utf8), status: status)
    }

    /// A response with the standard reason phrase as its text body (for errors).
    public static func status(_ status: HTTPStatus, message: String? = nil) -> HTTPResponse {
        text((message ?? status.reasonPhrase) + "\n", status: status)
    }
}

/// A byte range of an open file: the file is opened (and its tag computed) when the response is built, and read from
/// the same descriptor while the response is sent.
public struct HTTPFileBody: Sendable {
    /// The file's path.
    public let path: String
    /// The bytes to send.
    public let range: Range<Int>
    let file: OpenFile
}
