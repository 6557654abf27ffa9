/// A failure of the HTTP server: a ``code`` to switch on, and what went wrong and what to do.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The server could not start: its event loop, or listening on the address.
        case startFailed
        /// The client closed the connection before a streamed response ended.
        case connectionClosed
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do.
    public let description: String

    /// Creates an error.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    static let connectionClosed = HTTPServerError(.connectionClosed,
                                                  "the client closed the connection before the response ended")
}
