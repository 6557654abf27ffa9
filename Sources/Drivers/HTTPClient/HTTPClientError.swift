import Transport

/// Why a request or a WebSocket failed, naming the host (never a query string or a header value).
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The URL is not an absolute http(s) or ws(s) URL.
        case invalidURL
        /// DNS, TCP connect or TLS (certificate, host name) failed.
        case connectFailed
        /// The server did not answer in time.
        case timeout
        /// The server broke HTTP or WebSocket rules (or refused the upgrade: see the message for its status).
        case protocolError
        /// The response body was larger than allowed.
        case responseTooLarge
        /// The connection closed (or was closed) before the exchange finished.
        case closed
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do.
    public let description: String

    /// Creates an error.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    init(_ error: TransportError, url: String) {
        switch error.code {
        case .timeout: self.init(.timeout, error.description)
        case .peerClosed, .closed: self.init(.closed, error.description)
        default: self.init(.connectFailed, "cannot reach \(url): \(error.description)")
        }
    }
}
