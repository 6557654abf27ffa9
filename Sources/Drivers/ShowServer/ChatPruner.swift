import LiveShows
import Transport

/// Forgets chat older than the retention, on the store's thread: once when the server starts, then every
/// `interval`. Each pass removes at most ``batch`` messages (one short transaction, so chat writes never wait
/// long behind it); a pass that hit the limit is followed by another a second later until the backlog is gone.
/// Its timers live on the shows' loop and end with it.
final class ChatPruner: Sendable {
    /// The most messages one pass removes.
    static let batch = 5000
    /// The wait between passes while a backlog remains.
    static let backlogPause: Duration = .seconds(1)

    private let retention: Duration
    private let interval: Duration
    private let loop: EventLoop
    private let worker: StoreWorker
    private let onEvent: @Sendable (ShowServerEvent) -> Void

    init(retention: Duration, interval: Duration, loop: EventLoop, worker: StoreWorker,
         onEvent: @escaping @Sendable (ShowServerEvent) -> Void) {
        self.retention = retention
        self.interval = interval
        self.loop = loop
        self.worker = worker
        self.onEvent = onEvent
    }

    /// Runs the first pass now.
    func start() {
        pass(removedSoFar: 0)
    }

    private func pass(removedSoFar: Int) {
        let cutoff = WallClock.milliseconds() - Int64(retention / .milliseconds(1))
        worker.submit(.prune(before: cutoff, limit: Self.batch) { [self] result in
            switch result {
            case .success(let removed) where removed >= Self.batch:
                _ = loop.schedule(after: Self.backlogPause) { self.pass(removedSoFar: removedSoFar + removed) }
            case .success(let removed):
                let total = removedSoFar + removed
                if total > 0 {
                    onEvent(.chatPruned(messages: total, olderThanDays: Double(retention.components.seconds) / 86_400))
                }
                _ = loop.schedule(after: interval) { self.pass(removedSoFar: 0) }
            case .failure(let error):
                onEvent(.storeFailed(show: "*", reason: "removing old chat: \(error.reason)"))
                _ = loop.schedule(after: interval) { self.pass(removedSoFar: 0) }
            }
        })
    }
}
