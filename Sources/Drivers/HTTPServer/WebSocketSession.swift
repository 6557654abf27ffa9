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

    /// Queues a frame encoded once for many sessions. Called off the event loop, it hops there (see
    /// ``broadcast(_:to:)`` for a sender that must not outpace the loop).
    public func send(_ frame: WebSocketOutboundFrame) {
        guard isOpen else { return }
        let channel = self.channel
        if channel.loop.inEventLoop {
            channel.value.send(frame.bytes)
        } else {
            channel.loop.execute { channel.value.send(frame.bytes) }
        }
    }

    /// Sends the same frame to every session, at once when called on the server's event loop (from a session's
    /// callback), else with one hop to the loop for all of them.
    ///
    /// The hop's queue is not bounded: a caller off the loop that may send faster than the loop writes (a
    /// broadcast loop) uses ``broadcast(_:to:)``, which waits for the loop.
    public static func send<Sessions: Sequence>(_ frame: WebSocketOutboundFrame, to sessions: Sessions)
    where Sessions.Element == WebSocketSession {
        for (loop, group) in byLoop(sessions) {
            if loop.inEventLoop {
                deliver(frame, to: group)
            } else {
                loop.execute { deliver(frame, to: group) }
            }
        }
    }

    /// Sends the same frame to every session and returns once the event loop has queued it for each (or closed the
    /// sessions too slow to take it): the caller cannot outpace the loop.
    public static func broadcast<Sessions: Sequence>(_ frame: WebSocketOutboundFrame, to sessions: Sessions) async
    where Sessions.Element == WebSocketSession {
        for (loop, group) in byLoop(sessions) {
            _ = try? await loop.submit { deliver(frame, to: group) }
        }
    }

    private static func byLoop<Sessions: Sequence>(_ sessions: Sessions) -> [(EventLoop, [WebSocketSession])]
    where Sessions.Element == WebSocketSession {
        var groups: [(EventLoop, [WebSocketSession])] = []
        for session in sessions where session.isOpen {
            if let index = groups.firstIndex(where: { $0.0 === session.channel.loop }) {
                groups[index].1.append(session)
            } else {
                groups.append((session.channel.loop, [session]))
            }
        }
        return groups
    }

    /// Loop thread.
    private static func deliver(_ frame: WebSocketOutboundFrame, to sessions: [WebSocketSession]) {
        for session in sessions { session.channel.value.send(frame.bytes) }
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
