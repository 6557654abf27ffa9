/// A failure of the HTTP server: it could not listen, or a streamed response could not be written.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }

    static let connectionClosed = HTTPServerError("the client closed the connection before the response ended")
}
