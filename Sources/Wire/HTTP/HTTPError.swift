/// Why an HTTP message could not be parsed or framed, and the status a server answers it with.
///
/// Match on ``code``; show ``description`` to a person. A peer's bytes never appear in the description beyond a
/// short, printable excerpt.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The bytes break RFC 9112's grammar or its framing rules (smuggling vectors included): 400.
        case malformed
        /// The request line's target is longer than the limit: 414.
        case uriTooLong
        /// The head (start line and fields) is larger than the limit, or has too many fields: 431.
        case headTooLarge
        /// The body is larger than the route allows: 413.
        case bodyTooLarge
        /// An HTTP major version other than 1: 505.
        case unsupportedVersion
        /// A transfer coding other than chunked: 501.
        case unsupportedTransferCoding
        /// An `Expect` other than 100-continue: 417.
        case unsupportedExpectation
        /// The connection ended in the middle of a message.
        case truncated
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong, for logs and the error response's body.
    public let description: String

    /// Creates an error.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The status a server answers with before closing the connection.
    public var status: HTTPStatus {
        switch code {
        case .malformed, .truncated: .badRequest
        case .uriTooLong: .uriTooLong
        case .headTooLarge: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .contentTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedTransferCoding: .notImplemented
        case .unsupportedExpectation: .expectationFailed
        }
    }

    static func malformed(_ what: String) -> HTTPError {
        HTTPError(.malformed, what)
    }
}
