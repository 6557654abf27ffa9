import StreamCore

/// The client of a Stream server's live shows (the seed's `rt`): made with the server's URL and a token provider,
/// it opens shows with `calls.stream(name)`.
///
/// ```swift
/// let rt = Realtime(server: "https://live.example.com") { try await backend.streamToken() }
/// let show = try await rt.calls.stream("show:mugs")
/// ```
public final class Realtime: Sendable {
    /// Asks the app's backend for an access token (an HS256 JWT minted with the server's secret); nil for a
    /// visitor. Called at the first connection, again when the token held expires or the server refuses it.
    public typealias TokenProvider = @Sendable () async throws -> String?

    /// How shows connect.
    public struct Options: Sendable {
        /// Opens the WebSockets (Stream's own on Linux, `URLSessionWebSocketTask` on Apple platforms).
        public var connector: any ShowSocketConnector
        /// The waits between reconnect attempts (0.25 s doubling to 8 s, with jitter); attempts never stop until
        /// the show is left.
        public var backoff: ReconnectBackoff
        /// How long the server may take to answer the join once connected (then the connection is dropped and,
        /// on a reconnect, tried again).
        public var joinTimeout: Duration
        /// How often the client pings the server, so that a connection that died without closing (a network
        /// switch, a sleeping NAT) is noticed and replaced.
        public var keepAliveInterval: Duration
        /// How long a ping may go unanswered before the connection is given up.
        public var keepAliveTimeout: Duration
        /// How long the server may take to answer a request (send, react, a moderation action, going live) on a
        /// connection that is up; then the call fails `disconnected` and the connection is replaced, since a
        /// server that answers pings but not requests is not working.
        public var requestTimeout: Duration

        /// Creates options.
        public init(connector: (any ShowSocketConnector)? = nil,
                    backoff: ReconnectBackoff = ReconnectBackoff(initialDelay: .milliseconds(250),
                                                                 maximumDelay: .seconds(8)),
                    joinTimeout: Duration = .seconds(15), keepAliveInterval: Duration = .seconds(20),
                    keepAliveTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(15)) {
            self.connector = connector ?? Self.platformConnector()
            self.backoff = backoff
            self.joinTimeout = joinTimeout
            self.keepAliveInterval = keepAliveInterval
            self.keepAliveTimeout = keepAliveTimeout
            self.requestTimeout = requestTimeout
        }

        private static func platformConnector() -> any ShowSocketConnector {
            #if os(Linux)
            WebSocketClientConnector()
            #else
            URLSessionConnector()
            #endif
        }
    }

    /// The server's HTTP(S) base URL, e.g. `http://127.0.0.1:8080`.
    public let server: String
    /// The live shows of this server.
    public let calls: Calls

    /// Creates a client.
    /// - Parameters:
    ///   - server: the server's HTTP(S) base URL (`ws://` and `wss://` are taken as the same).
    ///   - options: the connector and the reconnect backoff.
    ///   - token: the token provider.
    public init(server: String, options: Options = Options(), token: @escaping TokenProvider) {
        self.server = server
        calls = Calls(server: server, options: options, tokens: token)
    }
}

/// The live shows of one server (the seed's `rt.calls`).
public struct Calls: Sendable {
    let server: String
    let options: Realtime.Options
    let tokens: Realtime.TokenProvider

    /// Joins a stream: connects, joins, and returns once the welcome (state, count, chat history) is in.
    /// - Parameters:
    ///   - name: the stream, e.g. `show:mugs` (1 to 128 of `A-Z a-z 0-9 : _ . -`).
    ///   - media: what the host publishes on `goLive()` (nil to watch, moderate or use OBS).
    /// - Throws: ``LiveStreamError``: `unauthorized`, `notFound`, `banned` (refused), `disconnected` (no server),
    ///   `invalid` (a bad name or URL).
    public func stream(_ name: String, media: (any LiveMedia)? = nil) async throws(LiveStreamError) -> LiveStream {
        let url = try StreamAddress.webSocketURL(server: server, stream: name)
        return try await LiveStream.open(name: name, server: server, url: url, options: options, tokens: tokens,
                                         media: media)
    }
}
