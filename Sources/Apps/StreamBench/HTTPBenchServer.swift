#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import HTTPServer
import Locking
import WebSocket

/// The server side of items 9-11, in a process of its own (`stream-bench http-child PORT DIR`) so its CPU and
/// memory are its own: `HTTPServer` (release build) with
/// - `/files/…`: the files of DIR (item 9, beside nginx serving the same directory),
/// - `/fanout`: a WebSocket group; a message from the session that connected with `?role=sender` is encoded once
///   and sent to every other session (item 10),
/// - `/idle`: WebSockets that do nothing (item 11).
/// It runs until it is sent SIGTERM.
enum HTTPBenchServer {
    static func child(port: Int, directory: String) throws {
        raiseOpenFileLimit()
        let group = FanOutGroup()
        var router = HTTPRouter()
        router.files("/files", directory: directory)
        let options = WebSocketOptions(maximumMessageSize: 64 * 1024, pingInterval: nil)
        router.webSocket("/fanout", options: options) { request, _ in
            let isSender = request.queryValue("role") == "sender"
            return .accept(WebSocketHandlers(onOpen: { session in
                if !isSender { group.receivers.append(session) }
            }, onMessage: { _, message in
                guard isSender, case .text(let text) = message else { return }
                // On the loop thread: the frame is encoded once, its bytes shared by every receiver's queue.
                WebSocketSession.send(WebSocketOutboundFrame(text: text), to: group.receivers)
            }, onClose: { session, _ in
                group.receivers.removeAll { $0 == session }
            }))
        }
        router.webSocket("/idle", options: WebSocketOptions(pingInterval: nil)) { _, _ in
            .accept(WebSocketHandlers(onMessage: { _, _ in }))
        }
        let server = try HTTPServer(configuration: .init(listen: ("127.0.0.1", port), maxConnections: 30_000),
                                    router: router)
        _ = try runBlocking { try await server.start() }
        FileHandle.standardOutput.write(Data("listening \(port)\n".utf8))
        withExtendedLifetime(server) {
            while true { pause() }
        }
    }

    /// Receivers of the fan-out route; touched only on the server's loop thread (its callbacks run there).
    final class FanOutGroup: @unchecked Sendable {
        // @unchecked Sendable: `receivers` is read and written only inside WebSocket callbacks, which all run on
        // the one event loop thread of the server.
        var receivers: [WebSocketSession] = []
    }

    /// Raises the open-file limit to the hard limit (10,000 WebSockets need as many descriptors).
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
