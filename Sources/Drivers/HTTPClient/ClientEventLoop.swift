import Locking
import Transport

/// The event loop shared by the process's HTTP and WebSocket clients, started on first use.
enum ClientEventLoop {
    private static let loop = Locked<EventLoop?>(nil)

    static func shared() throws(HTTPClientError) -> EventLoop {
        do {
            return try loop.withLock { current in
                if let current { return current }
                let made = try EventLoop(name: "stream-http-client")
                current = made
                return made
            }
        } catch {
            throw HTTPClientError(.connectFailed, "cannot start the network event loop: \(error)")
        }
    }
}
