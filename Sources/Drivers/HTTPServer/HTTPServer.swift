import HTTP
import Locking
import Transport

/// An HTTP/1.1 and WebSocket server on ``Transport``: plain and TLS listeners, routes, static files, streamed
/// responses and WebSocket sessions.
///
/// Every connection runs on one event loop thread as an ``HTTPServerMachine`` (or, after an upgrade, a
/// WebSocket machine). Async handlers run as tasks of one task group the server owns. Limits and timeouts
/// (docs/http.md): the request head must arrive within ``Configuration/headTimeout`` (slowloris), idle keep-alive
/// connections close after ``Configuration/keepAliveTimeout``, at most ``Configuration/maxConnections`` are open
/// per listener, and every WebSocket has a bounded outbound queue.
public final class HTTPServer: Sendable {
    /// How the server listens and what it allows.
    public struct Configuration: Sendable {
        /// Plain HTTP address (port 0 picks a free port). Nil for HTTPS only.
        public var listen: (host: String, port: Int)?
        /// HTTPS address and certificate. Nil for no TLS listener.
        public var tlsListen: (host: String, port: Int, tls: TLSServerConfiguration)?
        /// Head, URI, field-count and default body limits.
        public var limits: HTTPLimits
        /// The most connections open at once per listener; more are accepted and closed at once.
        public var maxConnections: Int
        /// A request head (and, on HTTPS, the TLS handshake) must arrive within this long.
        public var headTimeout: Duration
        /// A request body must arrive within this long after its head.
        public var bodyTimeout: Duration
        /// A keep-alive connection with no request for this long is closed.
        public var keepAliveTimeout: Duration
        /// After an error answer, how long the server reads and discards what the client still sends; also the
        /// bound on sending the last bytes before a close.
        public var lingerTimeout: Duration
        /// The `Server` field's value.
        public var serverName: String
        /// Receives log events (on the loop thread: keep it quick). No query string ever appears in one.
        public var onEvent: @Sendable (HTTPServerEvent) -> Void

        /// Creates a configuration with the documented defaults.
        public init(listen: (host: String, port: Int)? = ("127.0.0.1", 8080),
                    tlsListen: (host: String, port: Int, tls: TLSServerConfiguration)? = nil,
                    limits: HTTPLimits = HTTPLimits(), maxConnections: Int = 4096,
                    headTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30),
                    keepAliveTimeout: Duration = .seconds(30), lingerTimeout: Duration = .seconds(2),
                    serverName: String = "stream", onEvent: @escaping @Sendable (HTTPServerEvent) -> Void = { _ in }) {
            self.listen = listen
            self.tlsListen = tlsListen
            self.limits = limits
            self.maxConnections = maxConnections
            self.headTimeout = headTimeout
            self.bodyTimeout = bodyTimeout
            self.keepAliveTimeout = keepAliveTimeout
            self.lingerTimeout = lingerTimeout
            self.serverName = serverName
            self.onEvent = onEvent
        }
    }

    /// The ports actually bound.
    public struct BoundPorts: Sendable, Equatable {
        /// The HTTP port, if listening.
        public var http: Int?
        /// The HTTPS port, if listening.
        public var https: Int?
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let router: HTTPRouter
    private let loop: EventLoop
    private let runner = HandlerRunner()
    private let core = Locked<LoopBound<ServerCore>?>(nil)

    /// Creates a server; nothing listens until ``start()``.
    /// - Throws: ``HTTPServerError`` when the event loop cannot start.
    public init(configuration: Configuration, router: HTTPRouter) throws(HTTPServerError) {
        self.configuration = configuration
        self.router = router
        do {
            loop = try EventLoop(name: "stream-http")
        } catch {
            throw HTTPServerError(.startFailed, "cannot start the HTTP server's event loop: \(error)")
        }
    }

    deinit {
        runner.shutdown()
        loop.shutdown()
    }

    /// Binds the listeners and starts serving.
    /// - Returns: the bound ports.
    /// - Throws: ``HTTPServerError`` when an address is in use or the certificate cannot be loaded.
    @discardableResult
    public func start() async throws(HTTPServerError) -> BoundPorts {
        let configuration = self.configuration
        let router = self.router
        let runner = self.runner
        let loop = self.loop
        do {
            let bound = try await loop.submit { () throws -> LoopBound<ServerCore> in
                let core = ServerCore(configuration: configuration, router: router, runner: runner)
                try core.listen(on: loop)
                return LoopBound(core, loop: loop)
            }
            core.withLock { $0 = bound }
            return try await loop.submit { bound.value.ports }
        } catch let error as TransportError {
            throw HTTPServerError(.startFailed, error.description)
        } catch {
            throw HTTPServerError(.startFailed, "cannot start the HTTP server: \(error)")
        }
    }

    /// Connections open now, by protocol, and the bytes they moved since the server started.
    public struct Statistics: Sendable, Equatable {
        /// HTTP connections (keep-alive ones between requests too).
        public var httpConnections: Int
        /// WebSocket sessions (connections that upgraded).
        public var webSockets: Int
        /// Bytes read on HTTP connections (before an upgrade: the opening handshake counts here).
        public var httpBytesReceived = 0
        /// Bytes queued on HTTP connections: heads and bodies (files too).
        public var httpBytesSent = 0
        /// Bytes read on WebSocket connections, as framed on the wire.
        public var webSocketBytesReceived = 0
        /// Bytes queued on WebSocket connections: frames, pongs and close frames.
        public var webSocketBytesSent = 0

        /// Creates statistics.
        public init(httpConnections: Int, webSockets: Int) {
            self.httpConnections = httpConnections
            self.webSockets = webSockets
        }
    }

    /// Connections open now, by protocol, and bytes so far: counted on the loop as plain integers (no lock, no
    /// atomic on a read or write), read with one hop (zeros once stopped).
    public func statistics() async -> Statistics {
        guard let bound = core.withLock({ $0 }) else { return Statistics(httpConnections: 0, webSockets: 0) }
        return (try? await loop.submit { bound.value.statistics }) ?? Statistics(httpConnections: 0, webSockets: 0)
    }

    /// Connections (HTTP and WebSocket) open now.
    public func openConnections() async -> Int {
        guard let bound = core.withLock({ $0 }) else { return 0 }
        return (try? await loop.submit { bound.value.openConnections }) ?? 0
    }

    /// Stops listening, closes HTTP connections, closes WebSockets with 1001 (waiting up to `grace` for them to
    /// finish their closing handshakes), cancels running handlers and stops the event loop.
    public func stop(grace: Duration = .seconds(1)) async {
        if let bound = core.withLock({ value -> LoopBound<ServerCore>? in
            defer { value = nil }
            return value
        }) {
            let closed = OneShotEvent()
            if (try? await loop.submit { bound.value.close(grace: grace) { closed.fire() } }) != nil {
                await closed.wait()
            }
        }
        runner.shutdown()
        loop.shutdown()
    }
}
