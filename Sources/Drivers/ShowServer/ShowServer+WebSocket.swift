import HTTP
import HTTPServer
import JSON
import LiveProtocol
import LiveShows
import Locking
import WebSocket

extension ShowServer {
    /// The WebSocket options of `/v1/streams/{name}`: requests up to the protocol's limit (1009 beyond), and an
    /// outbound queue that holds a full welcome; a watcher that falls further behind is closed (1008). The kernel's
    /// send buffer is fixed at 64 KiB, so a stalled watcher pins about 1.1 MiB in all, not 5.
    public static let webSocketOptions = WebSocketOptions(maximumMessageSize: LiveCodec.maximumRequestSize,
                                                          outboundQueueLimit: LiveCodec.maximumServerMessageSize,
                                                          socketSendBufferSize: 64 * 1024)

    /// Serves the live-show protocol at `/v1/streams/{name}` on an HTTP server's router. The token comes from the
    /// `access_token` query parameter (browsers cannot set headers on a WebSocket) or an `Authorization: Bearer`
    /// header; without one the client is a visitor.
    public func addRoutes(to router: inout HTTPRouter) {
        router.webSocket("/v1/streams/{name}", options: Self.webSocketOptions) { [self] request, _ in
            let name = request.parameters["name"] ?? ""
            let token = request.queryValue("access_token") ?? request.bearerToken
            let address = MissLimiter.client(of: request.remoteAddress)
            let session = Locked<SessionID?>(nil)
            return .accept(WebSocketHandlers(
                onOpen: { [self] socket in
                    let id = connected(WebSocketShowConnection(socket), streamName: name, token: token,
                                       address: address)
                    session.withLock { $0 = id }
                },
                onMessage: { [self] _, message in
                    guard let id = session.withLock({ $0 }) else { return }
                    switch message {
                    case .text(let text): received(Array(text.utf8), from: id)
                    case .binary: receivedBinary(from: id)
                    }
                },
                onClose: { [self] _, _ in
                    guard let id = session.withLock({ $0 }) else { return }
                    disconnected(id)
                }))
        } otherwise: { [self] request in
            // The same path without an upgrade: the stream's status for a show card.
            let token = request.queryValue("access_token") ?? request.bearerToken
            switch await status(of: request.parameters["name"] ?? "", token: token) {
            case .success(let status): return Self.statusResponse(LiveCodec.encode(status), personal: token != nil)
            case .failure(let refusal): return Self.refusalResponse(refusal)
            }
        }
        router.get("/v1/streams") { [self] request in
            let token = request.queryValue("access_token") ?? request.bearerToken
            guard let pattern = request.queryValue("pattern") else {
                return Self.refusalResponse(StatusRefusal(status: 400, error: ShowError(
                    .invalid, "say which streams: ?pattern=show:* (1 to 128 characters, * for any run)")))
            }
            switch await liveStreams(matching: pattern, token: token) {
            case .success(let statuses): return Self.statusResponse(LiveCodec.encode(statuses), personal: token != nil)
            case .failure(let refusal): return Self.refusalResponse(refusal)
            }
        }
    }

    /// A status answer: a second of caching for everyone when it was asked without a token (a show card polls), none
    /// in shared caches when a token decided what it holds.
    private static func statusResponse(_ body: [UInt8], personal: Bool) -> HTTPResponse {
        var response = HTTPResponse.json(body)
        response.headers.add("Cache-Control", personal ? "private, no-store" : "public, max-age=1")
        return response
    }

    private static func refusalResponse(_ refusal: StatusRefusal) -> HTTPResponse {
        var response = HTTPResponse.json(JSONWriter.bytes(.object([("error", LiveCodec.json(refusal.error))])),
                                         status: HTTPStatus(code: refusal.status))
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// Sends one message to many connections: WebSocket sessions get one frame, encoded once, in one hop to
    /// their loop; any other connection gets it on its own.
    @Sendable public static func fanOut(_ text: [UInt8], to connections: [any ShowConnection]) {
        let frame = WebSocketOutboundFrame(text: String(decoding: text, as: UTF8.self))
        var sessions: [WebSocketSession] = []
        sessions.reserveCapacity(connections.count)
        for connection in connections {
            if let socket = connection as? WebSocketShowConnection {
                sessions.append(socket.session)
            } else {
                connection.send(text)
            }
        }
        WebSocketSession.send(frame, to: sessions)
    }
}

/// A WebSocket session as a show connection.
final class WebSocketShowConnection: ShowConnection {
    let session: WebSocketSession

    init(_ session: WebSocketSession) {
        self.session = session
    }

    func send(_ text: [UInt8]) {
        session.send(WebSocketOutboundFrame(text: String(decoding: text, as: UTF8.self)))
    }

    func close(code: UInt16, reason: String) {
        session.close(code: WebSocketCloseCode(rawValue: code), reason: reason)
    }
}
