/// A WebSocket failure: a handshake refused, or a peer that broke RFC 6455, with the close code that says so.
public struct WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The close code sent when this error fails the connection (1002, 1007, 1009...).
    public let closeCode: WebSocketCloseCode
    /// What went wrong.
    public let description: String

    /// Creates an error.
    public init(_ closeCode: WebSocketCloseCode, _ description: String) {
        self.closeCode = closeCode
        self.description = description
    }

    static func protocolError(_ what: String) -> WebSocketError {
        WebSocketError(.protocolError, what)
    }
}
