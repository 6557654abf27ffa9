/// Something the HTTP server did that an operator may want to see. Request targets appear as paths only: queries
/// may carry tokens (`access_token`), and they never reach a log.
public enum HTTPServerEvent: Sendable, Equatable, CustomStringConvertible {
    /// A request was refused as malformed or too large (400, 413, 414, 431...).
    case requestRejected(peer: String, status: Int, reason: String)
    /// A handler threw; the client got 500.
    case handlerFailed(method: String, path: String, reason: String)
    /// A WebSocket client read too slowly: its outbound queue overflowed and it was closed with 1008.
    case slowWebSocketClosed(peer: String, path: String, queuedBytes: Int)
    /// A connection ended with an error (TLS failure, reset) rather than a close.
    case connectionFailed(peer: String, reason: String)

    /// One log line.
    public var description: String {
        switch self {
        case .requestRejected(let peer, let status, let reason):
            "request from \(peer) rejected with \(status): \(reason)"
        case .handlerFailed(let method, let path, let reason): "\(method) \(path) failed: \(reason)"
        case .slowWebSocketClosed(let peer, let path, let queued):
            "WebSocket \(path) of \(peer) closed with 1008: it stopped reading (\(queued) bytes queued)"
        case .connectionFailed(let peer, let reason): "connection from \(peer) failed: \(reason)"
        }
    }
}
