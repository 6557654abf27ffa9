import HTTP
import Transport
import WebSocket

/// A WebSocket client (RFC 6455) for the client SDK and the CLI: connect with headers, send text and binary,
/// receive messages as an async sequence, close with a code. Reconnecting is the caller's business.
///
/// TLS (wss://) is verified exactly as RTMPS is. Messages are decoded as the caller asks for them: whatever the
/// caller sends in answer to a message goes out before anything a later frame causes. Pings are answered when
/// decoded, so a caller should keep reading (the SDK's receive loop does); bytes not decoded yet are bounded by
/// ``Options/receiveBufferLimit``, past which the client stops reading from the socket (the server then sees a
/// slow reader) until the caller takes the next message.
public final class WebSocketClient: Sendable {
    /// How the client connects and what it accepts.
    public struct Options: Sendable {
        /// An extra PEM CA file to trust for wss, besides the system store.
        public var caFile: String?
        /// Bound on DNS, TCP connect, TLS and the upgrade's answer, each.
        public var connectTimeout: Duration
        /// The largest message accepted (the connection fails with 1009 beyond it).
        public var maximumMessageSize: Int
        /// Received bytes not decoded yet (waiting for the caller) past which reading from the socket pauses.
        public var receiveBufferLimit: Int
        /// Queued outgoing bytes above which ``WebSocketClient/send(_:)`` waits for the network.
        public var sendHighWatermark: Int
        /// The most outgoing bytes queued at all (a send larger than the room left fails).
        public var writeBufferLimit: Int
        /// How long a close waits for the server's close frame, and then for the server to end the connection.
        public var closeTimeout: Duration

        /// Creates options.
        public init(caFile: String? = nil, connectTimeout: Duration = .seconds(10), maximumMessageSize: Int = 16 << 20,
                    receiveBufferLimit: Int = 4 << 20, sendHighWatermark: Int = 1 << 20,
                    writeBufferLimit: Int = 64 << 20, closeTimeout: Duration = .seconds(5)) {
            self.caFile = caFile
            self.connectTimeout = connectTimeout
            self.maximumMessageSize = maximumMessageSize
            self.receiveBufferLimit = receiveBufferLimit
            self.sendHighWatermark = sendHighWatermark
            self.writeBufferLimit = writeBufferLimit
            self.closeTimeout = closeTimeout
        }
    }

    /// The subprotocol the server chose, if any.
    public let subprotocol: String?
    private let channel: LoopBound<ClientWebSocketChannel>
    private let inbox: WebSocketInbox

    private init(subprotocol: String?, channel: LoopBound<ClientWebSocketChannel>, inbox: WebSocketInbox) {
        self.subprotocol = subprotocol
        self.channel = channel
        self.inbox = inbox
    }

    deinit {
        let channel = self.channel
        channel.loop.execute { channel.value.connection?.close() }
    }

    /// Opens a WebSocket.
    /// - Parameters:
    ///   - url: ws:// or wss:// (http:// and https:// are taken as the same).
    ///   - headers: extra fields for the upgrade request (`Authorization: Bearer …`, `Origin`).
    ///   - subprotocols: subprotocols to offer, in order of preference.
    ///   - options: TLS CA, timeouts, limits.
    ///   - loop: the event loop for the socket; by default one shared by the process's clients.
    /// - Throws: ``HTTPClientError``: `.invalidURL`, `.connectFailed` (DNS, refused, TLS), `.timeout`,
    ///   `.protocolError` (the server refused the upgrade: its status is in the message).
    public static func connect(to url: String, headers: HTTPHeaders = [:], subprotocols: [String] = [],
                               options: Options = Options(),
                               loop: EventLoop? = nil) async throws(HTTPClientError) -> WebSocketClient {
        guard let parsed = HTTPURL(url) else {
            throw HTTPClientError(.invalidURL, "not a ws(s) URL: \(url.split(separator: "?")[0])")
        }
        let chosenLoop: EventLoop
        if let loop {
            chosenLoop = loop
        } else {
            chosenLoop = try EventLoop.sharedForHTTPClients()
        }
        var random = SystemRandomNumberGenerator()
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        let handshake = WebSocketClientHandshake(nonce: nonce, protocols: subprotocols)
        let request = handshake.request(target: parsed.target, host: parsed.hostField, headers: headers)
        let inbox = WebSocketInbox()
        let tls = parsed.usesTLS ? TLSClientConfiguration(serverName: parsed.host, caFile: options.caFile) : nil
        let name = parsed.description
        let channel: LoopBound<ClientWebSocketChannel>
        do {
            let loop = chosenLoop
            channel = try await loop.submit {
                let channel = ClientWebSocketChannel(handshake: handshake, request: request, inbox: inbox,
                                                     options: options, url: name)
                channel.connection = Connection.connect(host: parsed.host, port: parsed.port, tls: tls,
                                                        timeout: options.connectTimeout, on: loop, handler: channel)
                return LoopBound(channel, loop: loop)
            }
        } catch {
            throw HTTPClientError(.connectFailed, "cannot connect to \(name): \(error)")
        }
        switch await inbox.waitForOpen() {
        case .success(let subprotocol):
            return WebSocketClient(subprotocol: subprotocol, channel: channel, inbox: inbox)
        case .failure(let error):
            throw error
        }
    }

    /// Sends a message; waits while more than ``Options/sendHighWatermark`` bytes are queued.
    /// - Throws: ``HTTPClientError`` `.closed` once the WebSocket is closing or closed.
    public func send(_ message: WebSocketMessage) async throws(HTTPClientError) {
        let channel = self.channel
        inbox.expectDrain()
        let mustWait: Bool
        do {
            mustWait = try await channel.loop.submit { try channel.value.send(message) }
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw HTTPClientError(.closed, "the WebSocket is closed: \(error)")
        }
        if mustWait { await inbox.waitForDrain() }
    }

    /// Sends a text message.
    public func send(text: String) async throws(HTTPClientError) {
        try await send(.text(text))
    }

    /// Sends a binary message.
    public func send(binary: [UInt8]) async throws(HTTPClientError) {
        try await send(.binary(binary))
    }

    /// Sends a ping (at most 125 bytes of payload).
    public func ping(_ payload: [UInt8] = []) async throws(HTTPClientError) {
        let channel = self.channel
        do {
            try await channel.loop.submit { try channel.value.ping(payload) }
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw HTTPClientError(.closed, "the WebSocket is closed: \(error)")
        }
    }

    /// How many pongs have arrived (answers to ``ping(_:)``, or unsolicited), decoded as the caller reads: a
    /// keep-alive pings, waits, and sees whether this moved.
    public var pongsReceived: Int { inbox.pongsReceived }

    /// The next message, or nil once the WebSocket has closed and every buffered message was taken (then
    /// ``closeInfo`` says how it ended). One caller at a time.
    public func receive() async -> WebSocketMessage? {
        let channel = self.channel
        return await inbox.next { channel.loop.execute { channel.value.pull() } }
    }

    /// The messages, ending when the WebSocket closes.
    public var messages: Messages { Messages(client: self) }

    /// Runs the closing handshake and returns how the WebSocket ended (at once if it already has).
    /// - Parameters:
    ///   - code: a code an endpoint may send (1000 by default, 1001, 3000-4999...).
    ///   - reason: a short text.
    @discardableResult
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async -> WebSocketClose {
        let channel = self.channel
        channel.loop.execute { channel.value.close(code: code, reason: reason) }
        return await inbox.waitForClose()
    }

    /// How the WebSocket ended, once it has: the code and reason of the close frames, or 1006.
    public var closeInfo: WebSocketClose? { inbox.closeInfo }

    /// The received messages as an async sequence.
    public struct Messages: AsyncSequence, Sendable {
        let client: WebSocketClient

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(client: client) }

        /// Takes messages from the client.
        public struct Iterator: AsyncIteratorProtocol {
            let client: WebSocketClient

            /// The next message, nil after the close.
            public mutating func next() async -> WebSocketMessage? {
                await client.receive()
            }
        }
    }
}
