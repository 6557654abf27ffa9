#if os(Linux)
import HTTP
import HTTPClient

/// Opens show sockets with Stream's own `WebSocketClient` (TLS verified as RTMPS is).
public struct WebSocketClientConnector: ShowSocketConnector {
    /// The WebSocket options (an extra CA file for wss, timeouts).
    public var options: WebSocketClient.Options

    /// Creates a connector.
    /// - Parameter caFile: an extra PEM CA file to trust for wss, besides the system store.
    public init(caFile: String? = nil, connectTimeout: Duration = .seconds(10)) {
        options = WebSocketClient.Options(caFile: caFile, connectTimeout: connectTimeout,
                                          maximumMessageSize: 2 << 20)
    }

    /// Opens a WebSocket with the token in an `Authorization: Bearer` header (never in the URL).
    public func connect(to url: String, token: String?) async throws(LiveStreamError) -> any ShowSocket {
        let bearer = token.map { [HTTPHeaders.Field(name: "Authorization", value: "Bearer \($0)")] }
        let headers = HTTPHeaders(bearer ?? [])
        do {
            return WebSocketClientSocket(client: try await WebSocketClient.connect(to: url, headers: headers,
                                                                                   options: options))
        } catch {
            throw .disconnected("\(error)")
        }
    }
}

/// A `WebSocketClient` as a show socket.
struct WebSocketClientSocket: ShowSocket {
    let client: WebSocketClient

    func send(_ text: String) async throws {
        try await client.send(text: text)
    }

    func receive() async -> String? {
        while let message = await client.receive() {
            if case .text(let text) = message { return text }
        }
        return nil
    }

    func ping(timeout: Duration) async -> Bool {
        let before = client.pongsReceived
        do {
            try await client.ping()
        } catch {
            return false
        }
        // The reader decodes the pong; a keep-alive checks once, after the time it allows.
        try? await Task.sleep(for: timeout)
        return client.pongsReceived > before
    }

    func close() async {
        await client.close()
    }
}
#endif
