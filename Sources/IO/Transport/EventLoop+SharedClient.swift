import Locking

extension EventLoop {
    private static let sharedClientLoop = Locked<EventLoop?>(nil)

    /// The process-wide event loop for client connections ("stream-client"), started on first use and never shut
    /// down: one thread serves every RTMP publisher, HTTP client and WebSocket client in the process that is not
    /// given a loop of its own (a broadcast to several destinations and its live-show connection share it).
    /// - Throws: ``TransportError`` when the loop cannot start (no thread or epoll set).
    public static func sharedClient() throws(TransportError) -> EventLoop {
        try sharedClientLoop.withLock { (current: inout EventLoop?) throws(TransportError) -> EventLoop in
            if let current { return current }
            let made = try EventLoop(name: "stream-client")
            current = made
            return made
        }
    }
}
