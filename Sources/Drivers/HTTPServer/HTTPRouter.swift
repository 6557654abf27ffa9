import HTTP
import WebSocket

/// The server's routes: a method and a path pattern lead to a handler. Built before the server starts.
///
/// Patterns have literal segments, `{name}` for one segment and a final `{name...}` for the rest. Routes are
/// tried in the order added; a GET route also answers HEAD (without the body). A path that matches no route is
/// 404; one that matches only routes of other methods is 405 with `Allow`.
public struct HTTPRouter: Sendable {
    /// What answers a route's requests.
    public enum Handler: Sendable {
        /// Runs on the server's event loop thread: only for quick work that never blocks or waits (static files,
        /// health, in-memory lookups). The fastest path.
        case immediate(@Sendable (HTTPRequest) -> HTTPResponse)
        /// Runs as a task: may wait (a blocking playlist reload holds the request until its part exists, a
        /// database answers...). If the client disconnects first, the task is cancelled. A thrown error is
        /// answered with 500.
        case async(@Sendable (HTTPRequest) async throws -> HTTPResponse)
        /// Runs on the event loop like ``immediate`` and answers at once when it can; when it must wait (a
        /// blocking playlist reload whose part does not exist yet) it keeps an ``HTTPPendingResponse`` that whatever
        /// completes the wait answers, from any thread. No request costs a task.
        case immediateOrLater(@Sendable (HTTPRequest) -> ImmediateOrLater)
        /// A WebSocket endpoint (see ``HTTPRouter/webSocket(_:options:decide:)``).
        case webSocket(WebSocketRoute)
    }

    /// What an ``Handler/immediateOrLater(_:)`` handler decides on the event loop.
    public enum ImmediateOrLater: Sendable {
        /// The answer, sent at once.
        case response(HTTPResponse)
        /// Answer later without a task: the closure runs at once on the event loop and keeps the pending response
        /// where whatever completes it will find it (a held LL-HLS request), or answers it from another thread.
        case later(@Sendable (HTTPPendingResponse) -> Void)
    }

    /// A class: every request's match carries its route, and a copy of a reference is one retain (of the struct,
    /// one per pattern array, string and handler closure).
    final class Route: Sendable {
        let method: HTTPMethod
        let pattern: HTTPPathPattern
        let bodyLimit: Int
        let handler: Handler

        init(method: HTTPMethod, pattern: HTTPPathPattern, bodyLimit: Int, handler: Handler) {
            self.method = method
            self.pattern = pattern
            self.bodyLimit = bodyLimit
            self.handler = handler
        }
    }

    enum Match: Sendable {
        case route(Route, parameters: HTTPRouteParameters)
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    private(set) var routes: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Adds a route.
    /// - Parameters:
    ///   - method: the method (GET routes also answer HEAD).
    ///   - pattern: the path pattern ("/v1/streams/{name}").
    ///   - bodyLimit: the largest request body accepted (413 beyond it); nil for the server's default.
    ///   - handler: what answers.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil, _ handler: Handler) {
        routes.append(Route(method: method, pattern: HTTPPathPattern(pattern), bodyLimit: bodyLimit ?? -1,
                            handler: handler))
    }

    /// Adds an async GET route.
    public mutating func get(_ pattern: String,
                             _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        add(.get, pattern, .async(handler))
    }

    /// Adds an async POST route.
    public mutating func post(_ pattern: String, bodyLimit: Int? = nil,
                              _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        add(.post, pattern, bodyLimit: bodyLimit, .async(handler))
    }

    /// Adds an async DELETE route.
    public mutating func delete(_ pattern: String,
                                _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        add(.delete, pattern, .async(handler))
    }

    /// Serves the files under `directory` at `prefix` ("/static" serves "/static/app.js"), with ETag and Range,
    /// on the event loop. The route keeps the descriptors of up to 32 files it served, reused while their path still
    /// names the same file (see docs/http.md).
    public mutating func files(_ prefix: String, directory: String) {
        let root = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let pattern = (prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix) + "/{...}"
        let prefixSegments = HTTPRequestTarget(prefix)?.pathSegments.count ?? 0
        let cache = OpenFileCache()
        add(.get, pattern, .immediate { request in
            // The decoded segments after the prefix (an encoded "/" stays inside its segment, and is refused).
            let segments = Array(request.target.pathSegments.dropFirst(prefixSegments))
            return StaticFiles.response(root: root, segments: segments, request: request, cache: cache)
        })
    }

    /// Adds a WebSocket endpoint. A valid upgrade request (RFC 6455 §4.2.1) is passed to `decide`, which accepts it
    /// with handlers (and a subprotocol from the offer) or rejects it with a response (401, 403, 404...); an
    /// invalid one is answered 400 or 426 without calling `decide`.
    /// - Parameters:
    ///   - pattern: the path pattern ("/v1/streams/{name}").
    ///   - options: message size, outbound queue, ping and close timing.
    ///   - decide: checks the request (a token from `access_token` or `Authorization: Bearer`) and decides.
    ///   - otherwise: answers a GET of the same path that asks for no upgrade (no `Upgrade: websocket`), as a plain
    ///     route would; nil: such a request is answered 426 Upgrade Required.
    public mutating func webSocket(
        _ pattern: String, options: WebSocketOptions = WebSocketOptions(),
        decide: @escaping @Sendable (HTTPRequest, WebSocketHandshake.Offer) async -> WebSocketUpgrade,
        otherwise: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil
    ) {
        add(.get, pattern, .webSocket(WebSocketRoute(options: options, decide: decide, otherwise: otherwise)))
    }

    /// The route for a method and decoded path.
    func match(_ method: HTTPMethod, _ path: [String]) -> Match {
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let values = route.pattern.values(path) else { continue }
            if route.method == method || (method == .head && route.method == .get) {
                return .route(route, parameters: HTTPRouteParameters(names: route.pattern.parameterNames,
                                                                     values: values))
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }
}

/// A WebSocket endpoint: its options and the decision on each upgrade request.
public struct WebSocketRoute: Sendable {
    /// Limits and timing of the route's sessions.
    public var options: WebSocketOptions
    /// Accepts or rejects an upgrade request.
    public var decide: @Sendable (HTTPRequest, WebSocketHandshake.Offer) async -> WebSocketUpgrade
    /// Answers a request of the path that asks for no upgrade; nil: 426.
    public var otherwise: (@Sendable (HTTPRequest) async throws -> HTTPResponse)?
}

/// Limits and timing of a WebSocket route's sessions.
public struct WebSocketOptions: Sendable {
    /// The largest message accepted from a client (1009 beyond it).
    public var maximumMessageSize: Int
    /// Bytes that may wait to be sent to one client: a send that finds more than this already waiting closes the
    /// client with 1008 (a reader too slow for the stream), so one stalled viewer costs at most this much memory
    /// plus one message, plus what the kernel holds (``socketSendBufferSize``).
    public var outboundQueueLimit: Int
    /// The kernel's send buffer for the session's socket (SO_SNDBUF, which Linux doubles); nil (the default) leaves
    /// the kernel's auto-tuning, which suits bulk senders but lets a stalled reader pin up to 4 MiB of kernel memory
    /// before ``outboundQueueLimit`` sees a byte. Servers with many small-message readers (chat) set it.
    public var socketSendBufferSize: Int?
    /// With nothing received for this long, the server pings; with nothing for twice as long, it drops the
    /// connection as dead. Nil turns keep-alive pings off.
    public var pingInterval: Duration?
    /// How long the server waits for the client's close frame (and for queued bytes to leave) after sending its
    /// own, before it closes the TCP connection anyway.
    public var closeTimeout: Duration

    /// Creates options; the defaults are documented in docs/http.md.
    public init(maximumMessageSize: Int = 1 << 20, outboundQueueLimit: Int = 256 * 1024,
                socketSendBufferSize: Int? = nil, pingInterval: Duration? = .seconds(30),
                closeTimeout: Duration = .seconds(5)) {
        self.maximumMessageSize = maximumMessageSize
        self.outboundQueueLimit = outboundQueueLimit
        self.socketSendBufferSize = socketSendBufferSize
        self.pingInterval = pingInterval
        self.closeTimeout = closeTimeout
    }
}

/// A WebSocket route's answer to an upgrade request.
public enum WebSocketUpgrade: Sendable {
    /// Switch protocols; `handlers` receive the session's events. `subprotocol` must be one the client offered.
    case accept(WebSocketHandlers, subprotocol: String? = nil)
    /// Answer with this response instead (401 for a missing token, 403, 404 for an unknown stream...).
    case reject(HTTPResponse)
}

/// What a WebSocket session tells its owner. Every callback runs on the server's event loop thread, one at a time
/// per session and in order: keep them quick (hand work to your own queue or actor if it may wait).
public struct WebSocketHandlers: Sendable {
    /// The session is open (the 101 has been queued); messages may be sent from now on.
    public var onOpen: @Sendable (WebSocketSession) -> Void
    /// A whole message arrived.
    public var onMessage: @Sendable (WebSocketSession, WebSocketMessage) -> Void
    /// The session ended, once, with the close code and reason (1006 if the connection just dropped).
    public var onClose: @Sendable (WebSocketSession, WebSocketClose) -> Void

    /// Creates handlers.
    public init(onOpen: @escaping @Sendable (WebSocketSession) -> Void = { _ in },
                onMessage: @escaping @Sendable (WebSocketSession, WebSocketMessage) -> Void,
                onClose: @escaping @Sendable (WebSocketSession, WebSocketClose) -> Void = { _, _ in }) {
        self.onOpen = onOpen
        self.onMessage = onMessage
        self.onClose = onClose
    }
}
