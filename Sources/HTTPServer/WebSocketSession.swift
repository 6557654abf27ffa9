import Synchronization
import Transport
import WebSocket

/// A frame encoded once and sent as the same bytes to any number of sessions: a server's frames are not masked, so
/// a message fanned out to thousands of viewers costs one encoding and one shared buffer.
public struct WebSocketOutboundFrame: Sendable {
    /// The frame's bytes on the wire.
    public let bytes: [UInt8]

    /// A text message.
    public init(text: String) {
        bytes = WebSocketFrame.serverText(text)
    }

    /// A binary message.
    public init(binary: [UInt8]) {
        bytes = WebSocketFrame.serverBinary(binary)
    }
}

/// One open WebSocket of the server: send to it from any thread, close it, read what the upgrade request carried.
///
/// Sends never wait: each goes into the session's outbound queue, bounded by
/// ``WebSocketOptions/outboundQueueLimit``. A session whose client reads too slowly for what it is sent is closed
/// with 1008 instead of holding more memory; ``isOpen`` turns false and `onClose` follows.
public final class WebSocketSession: Sendable, Hashable, CustomStringConvertible {
    /// Unique among the server's sessions.
    public let id: UInt64
    /// The upgrade request: path parameters, query (`access_token`), headers (`Authorization`), peer address.
    public let request: HTTPRequest
    /// The subprotocol agreed on, if any.
    public let subprotocol: String?

    private let channel: LoopBound<ServerWebSocket>
    private let open = Atomic<Bool>(true)

    init(id: UInt64, request: HTTPRequest, subprotocol: String?, channel: LoopBound<ServerWebSocket>) {
        self.id = id
        self.request = request
        self.subprotocol = subprotocol
        self.channel = channel
    }

    /// "WebSocket 12 /v1/streams/show from 127.0.0.1:50000" (no query: it may hold a token).
    public var description: String { "WebSocket \(id) \(request.path) from \(request.remoteAddress)" }

    /// False once the session started closing (by either side, or for a slow reader).
    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Queues a message.
    public func send(_ message: WebSocketMessage) {
        switch message {
        case .text(let text): send(WebSocketOutboundFrame(text: text))
        case .binary(let bytes): send(WebSocketOutboundFrame(binary: bytes))
        }
    }

    /// Queues a text message.
    public func send(text: String) {
        send(WebSocketOutboundFrame(text: text))
    }

    /// Queues a frame encoded once for many sessions.
    public func send(_ frame: WebSocketOutboundFrame) {
        guard isOpen else { return }
        let channel = self.channel
        if channel.loop.inEventLoop {
            channel.value.send(frame.bytes)
        } else {
            channel.loop.execute { channel.value.send(frame.bytes) }
        }
    }

    /// Sends the same frame to every session, with one hop to the event loop for all of them.
    public static func send<Sessions: Sequence>(_ frame: WebSocketOutboundFrame, to sessions: Sessions)
    where Sessions.Element == WebSocketSession {
        let open = sessions.filter(\.isOpen)
        guard let loop = open.first?.channel.loop else { return }
        let work: @Sendable () -> Void = {
            for session in open where session.channel.loop === loop {
                session.channel.value.send(frame.bytes)
            }
        }
        if loop.inEventLoop { work() } else { loop.execute(work) }
        for session in open where session.channel.loop !== loop {
            session.send(frame)
        }
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2).
    /// - Parameters:
    ///   - code: a code an endpoint may send (1000, 1001, 1008, 3000-4999...).
    ///   - reason: a short text (cut to fit 123 bytes).
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let channel = self.channel
        if channel.loop.inEventLoop {
            channel.value.close(code: code, reason: reason)
        } else {
            channel.loop.execute { channel.value.close(code: code, reason: reason) }
        }
    }

    /// The session is closing (loop side).
    func markClosing() {
        open.store(false, ordering: .releasing)
    }

    /// Same session.
    public static func == (lhs: WebSocketSession, rhs: WebSocketSession) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
