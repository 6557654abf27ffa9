import Locking
import Synchronization
import Transport

/// The process-wide event loop for client connections, started on first use.
///
/// One thread serves every publisher in the process (a broadcast to several destinations shares it).
enum ClientEventLoop {
    private static let loop = Locked<EventLoop?>(nil)

    static func shared() throws -> EventLoop {
        try loop.withLock { current in
            if let current { return current }
            let made = try EventLoop(name: "stream-client")
            current = made
            return made
        }
    }
}

/// Set from the loop thread when a timeout fires, read by the awaiting task.
final class TimeoutFlag: Sendable {
    private let fired = Atomic<Bool>(false)

    func fire() { fired.store(true, ordering: .releasing) }

    var hasFired: Bool { fired.load(ordering: .acquiring) }
}
