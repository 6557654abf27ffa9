import HTTP
import Locking
import Transport

/// Sends HTTP/1.1 requests over TCP or TLS and returns whole responses (for WHIP, the client SDK and the CLI).
///
/// TLS is verified exactly as RTMPS is (``TLSClientConfiguration``): the system CA store plus an optional extra
/// CA file, and the certificate must be valid for the URL's host. Idle keep-alive connections are reused for
/// idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS) and those marked ``HTTPClientRequest/mayRepeat``; one
/// that turns out to have been closed by the server is retried once on a new connection. Other POST and PATCH
/// requests always get a connection of their own, so they are never sent twice. At most
/// ``maximumIdleConnectionsPerOrigin`` idle connections are kept per origin, none past ``Options/idleTimeout``.
public final class HTTPClient: Sendable {
    /// How the client connects and what it accepts.
    public struct Options: Sendable {
        /// An extra PEM CA file to trust for https, besides the system store.
        public var caFile: String?
        /// Bound on DNS + TCP connect + TLS handshake.
        public var connectTimeout: Duration
        /// Bound on the whole exchange once connected (sending the request, receiving the response).
        public var requestTimeout: Duration
        /// The largest response body accepted.
        public var maximumResponseBodySize: Int
        /// An idle connection older than this is not reused.
        public var idleTimeout: Duration

        /// Creates options.
        public init(caFile: String? = nil, connectTimeout: Duration = .seconds(10),
                    requestTimeout: Duration = .seconds(30), maximumResponseBodySize: Int = 16 << 20,
                    idleTimeout: Duration = .seconds(4)) {
            self.caFile = caFile
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maximumResponseBodySize = maximumResponseBodySize
            self.idleTimeout = idleTimeout
        }
    }

    /// The most idle connections kept for one origin; the oldest beyond are closed.
    public static let maximumIdleConnectionsPerOrigin = 4

    /// The options in force.
    public let options: Options
    private let loop: EventLoop
    private let idle = Locked<[String: [(connection: AsyncConnection, since: ContinuousClock.Instant)]]>([:])

    /// Creates a client.
    /// - Parameter loop: the event loop for its sockets; by default one shared by the process's clients.
    public init(options: Options = Options(), loop: EventLoop? = nil) throws(HTTPClientError) {
        self.options = options
        if let loop {
            self.loop = loop
        } else {
            self.loop = try EventLoop.sharedForHTTPClients()
        }
    }

    /// Closes the idle connections.
    public func shutdown() async {
        let connections = idle.withLock { pool in
            defer { pool = [:] }
            return pool.values.flatMap { $0.map(\.connection) }
        }
        for connection in connections { await connection.close(flushTimeout: .zero) }
    }

    /// GET.
    public func get(_ url: String, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> HTTPClientResponse {
        try await send(HTTPClientRequest(method: .get, url: url, headers: headers))
    }

    /// POST with a body (WHIP: `Content-Type: application/sdp` and the offer).
    /// - Parameter mayRepeat: whether the receiver absorbs a repeat, so the POST may use an idle connection
    ///   (``HTTPClientRequest/mayRepeat``).
    public func post(_ url: String, headers: HTTPHeaders = [:], body: [UInt8],
                     mayRepeat: Bool = false) async throws(HTTPClientError) -> HTTPClientResponse {
        try await send(HTTPClientRequest(method: .post, url: url, headers: headers, body: body, mayRepeat: mayRepeat))
    }

    /// The idle connections kept for reuse, all origins together.
    public var idleConnections: Int {
        idle.withLock { pool in pool.values.reduce(0) { $0 + $1.count } }
    }

    /// DELETE.
    public func delete(_ url: String, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> HTTPClientResponse {
        try await send(HTTPClientRequest(method: .delete, url: url, headers: headers))
    }

    /// Sends a request and returns the whole response, whatever its status.
    /// - Throws: ``HTTPClientError``: an invalid URL, a connect or TLS failure, a timeout, a malformed response,
    ///   a body over ``Options/maximumResponseBodySize``.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        guard let url = HTTPURL(request.url), url.scheme == "http" || url.scheme == "https" else {
            throw HTTPClientError(.invalidURL, "not an http(s) URL: \(HTTPURL(request.url)?.description ?? "?")")
        }
        let head = Self.head(for: request, url: url)
        let reusable = request.mayRepeat
        let (pooled, stale) = reusable ? takeIdle(url) : (nil, [])
        for connection in stale { await connection.close(flushTimeout: .zero) }
        if let pooled {
            do {
                return try await exchange(head, body: request.body, on: pooled, url: url, reused: true)
            } catch let error where error.code == .closed {
                // The server closed the idle connection meanwhile: nothing was processed, try a fresh one.
            }
        }
        let connection = try await connect(url)
        return try await exchange(head, body: request.body, on: connection, url: url, reused: false)
    }

    private static func head(for request: HTTPClientRequest, url: HTTPURL) -> HTTPRequestHead {
        var headers = request.headers
        headers.remove("Content-Length")
        headers.remove("Transfer-Encoding")
        headers.remove("Connection")
        if !headers.contains("Host") { headers.add("Host", url.hostField) }
        if !headers.contains("User-Agent") { headers.add("User-Agent", "stream") }
        if !request.body.isEmpty || [.post, .put, .patch].contains(request.method) {
            headers.add("Content-Length", String(request.body.count))
        }
        return HTTPRequestHead(method: request.method, target: url.target, headers: headers)
    }

    private func connect(_ url: HTTPURL) async throws(HTTPClientError) -> AsyncConnection {
        let tls = url.usesTLS ? TLSClientConfiguration(serverName: url.host, caFile: options.caFile) : nil
        do {
            return try await AsyncConnection.connect(host: url.host, port: url.port, tls: tls,
                                                     timeout: options.connectTimeout, loop: loop)
        } catch {
            throw HTTPClientError(error, url: url.description)
        }
    }

    /// Sends the request on `connection` and reads the response, within the request timeout.
    private func exchange(_ head: HTTPRequestHead, body: [UInt8], on connection: AsyncConnection, url: HTTPURL,
                          reused: Bool) async throws(HTTPClientError) -> HTTPClientResponse {
        let limit = options.maximumResponseBodySize
        let timeout = options.requestTimeout
        let timedOut = Locked(false)
        let timeoutError = HTTPClientError(.timeout, "\(url) did not answer within \(timeout)")
        var outcome: Result<(HTTPClientResponse, Bool), HTTPClientError>
        outcome = await withTaskGroup(of: Result<(HTTPClientResponse, Bool), HTTPClientError>?.self) { group in
            group.addTask {
                do throws(HTTPClientError) {
                    return .success(try await Self.readResponse(head, body: body, connection, limit: limit,
                                                                url: url, reused: reused))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return nil }
                // Closing the connection ends the read that waits on it (which then reports a close: the flag
                // tells that it was ours).
                timedOut.withLock { $0 = true }
                await connection.close(flushTimeout: .zero)
                return .failure(timeoutError)
            }
            var first: Result<(HTTPClientResponse, Bool), HTTPClientError>?
            while first == nil, let next = await group.next() {
                first = next
            }
            group.cancelAll()
            return first ?? .failure(HTTPClientError(.closed, "the request to \(url) ended without an answer"))
        }
        if case .failure = outcome, timedOut.withLock({ $0 }) { outcome = .failure(timeoutError) }
        switch outcome {
        case .success(let (response, keepAlive)):
            if keepAlive {
                for stale in keepIdle(connection, url: url) { await stale.close(flushTimeout: .zero) }
            } else {
                await connection.close(flushTimeout: .zero)
            }
            return response
        case .failure(let error):
            await connection.close(flushTimeout: .zero)
            throw error
        }
    }

    /// Writes the request and decodes the response. Returns it and whether the connection may be reused.
    private static func readResponse(_ head: HTTPRequestHead, body: [UInt8], _ connection: AsyncConnection,
                                     limit: Int, url: HTTPURL,
                                     reused: Bool) async throws(HTTPClientError) -> (HTTPClientResponse, Bool) {
        do {
            try connection.write(head.encoded() + body)
        } catch {
            throw HTTPClientError(reused ? .closed : .connectFailed, "cannot send to \(url): \(error)")
        }
        var decoder = HTTPResponseDecoder()
        decoder.expectResponse(to: head.method)
        var responseHead: HTTPResponseHead?
        var responseBody: [UInt8] = []
        var receivedAny = false
        while true {
            let bytes: [UInt8]?
            do {
                bytes = try await connection.read()
            } catch {
                throw HTTPClientError(receivedAny || !reused ? .connectFailed : .closed,
                                      "the connection to \(url) failed: \(error)")
            }
            do throws(HTTPError) {
                var parts: [HTTPResponseDecoder.Part] = []
                if let bytes {
                    receivedAny = true
                    decoder.append(bytes)
                    while let part = try decoder.next() { parts.append(part) }
                } else {
                    guard receivedAny || !reused else {
                        throw HTTPError(.truncated, "closed before answering")
                    }
                    if let part = try decoder.connectionClosed() { parts.append(part) }
                }
                for part in parts {
                    switch part {
                    case .head(let head):
                        responseHead = head
                    case .body(let piece):
                        guard responseBody.count + piece.count <= limit else {
                            throw HTTPError(.bodyTooLarge, "larger than \(limit) bytes")
                        }
                        responseBody += piece
                    case .end:
                        guard let responseHead else { continue }
                        let keepAlive = bytes != nil && responseHead.version.minor >= 1
                            && !responseHead.headers.contains("Connection", token: "close")
                        return (HTTPClientResponse(head: responseHead, body: responseBody), keepAlive)
                    }
                }
                if bytes == nil {
                    throw HTTPError(.truncated, "the connection closed before the response was complete")
                }
            } catch {
                switch error.code {
                case .bodyTooLarge:
                    throw HTTPClientError(.responseTooLarge, "the response from \(url) is \(error.description)")
                case .truncated where !receivedAny && reused:
                    throw HTTPClientError(.closed, "\(url) closed the idle connection")
                default:
                    throw HTTPClientError(.protocolError, "invalid response from \(url): \(error.description)")
                }
            }
        }
    }

    /// Puts a connection in the pool; returns those it pushed out: past the idle timeout, or the oldest beyond
    /// ``maximumIdleConnectionsPerOrigin``.
    private func keepIdle(_ connection: AsyncConnection, url: HTTPURL) -> [AsyncConnection] {
        let key = "\(url.scheme)://\(url.hostField)"
        let maximumAge = options.idleTimeout
        return idle.withLock { pool -> [AsyncConnection] in
            // One reading of the clock and one pass: each entry is either kept or returned to be closed.
            let now = ContinuousClock.now
            var list: [(connection: AsyncConnection, since: ContinuousClock.Instant)] = []
            var evicted: [AsyncConnection] = []
            for entry in pool[key] ?? [] {
                if entry.since.duration(to: now) < maximumAge {
                    list.append(entry)
                } else {
                    evicted.append(entry.connection)
                }
            }
            list.append((connection, now))
            if list.count > Self.maximumIdleConnectionsPerOrigin {
                let excess = list.count - Self.maximumIdleConnectionsPerOrigin
                evicted += list.prefix(excess).map(\.connection)
                list.removeFirst(excess)
            }
            pool[key] = list
            return evicted
        }
    }

    /// The newest idle connection to the URL's origin still within the idle timeout, and those found past it
    /// (to be closed).
    private func takeIdle(_ url: HTTPURL) -> (connection: AsyncConnection?, stale: [AsyncConnection]) {
        let key = "\(url.scheme)://\(url.hostField)"
        let maximumAge = options.idleTimeout
        return idle.withLock { pool -> (AsyncConnection?, [AsyncConnection]) in
            var stale: [AsyncConnection] = []
            while var list = pool[key], let last = list.popLast() {
                pool[key] = list.isEmpty ? nil : list
                if last.since.duration(to: .now) < maximumAge { return (last.connection, stale) }
                stale.append(last.connection)
            }
            return (nil, stale)
        }
    }
}
