/// One WebSocket to the live-show server, as the client needs it: text out, text in, a close. Linux uses Stream's
/// own `WebSocketClient`; Apple platforms `URLSessionWebSocketTask`; tests may bring their own.
public protocol ShowSocket: Sendable {
    /// Sends one text message.
    /// - Throws: when the socket is closed.
    func send(_ text: String) async throws
    /// The next text message, or nil once the socket has closed.
    func receive() async -> String?
    /// Pings and reports whether the server answered within `timeout` (while another task reads the socket).
    func ping(timeout: Duration) async -> Bool
    /// Closes the socket (code 1000) and waits for the end.
    func close() async
}

/// Opens ``ShowSocket``s.
public protocol ShowSocketConnector: Sendable {
    /// Opens a WebSocket.
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL of the stream.
    ///   - token: the access token for `Authorization: Bearer`, nil for a visitor.
    /// - Throws: ``LiveStreamError/disconnected(_:)`` when it cannot connect (the reason never holds the token).
    func connect(to url: String, token: String?) async throws(LiveStreamError) -> any ShowSocket
}
