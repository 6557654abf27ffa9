import Synchronization
import Transport

/// Bytes the client handed to its connection so far; written by the client actor, read on the loop thread.
final class WriteCounter: Sendable {
    private let total = Atomic<Int>(0)

    func add(_ count: Int) { total.add(count, ordering: .releasing) }

    var value: Int { total.load(ordering: .acquiring) }
}

/// Watches the send queue while a caller waits for it to drain. When not one byte leaves the queue for a whole
/// `timeout` (the ingest stopped reading: TCP keeps such a connection open for ever), it raises `stalled` and
/// closes the connection, which ends the wait with an error.
final class SendStallWatchdog: Sendable {
    private let connection: AsyncConnection
    private let written: WriteCounter
    private let stalled: TimeoutFlag
    private let timeout: Duration
    private let loop: EventLoop
    private let pending = Mutex<Scheduled?>(nil)
    private let cancelled = Atomic<Bool>(false)
    private let lastSent = Atomic<Int>(0)

    init(connection: AsyncConnection, written: WriteCounter, stalled: TimeoutFlag, timeout: Duration,
         loop: EventLoop) {
        self.connection = connection
        self.written = written
        self.stalled = stalled
        self.timeout = timeout
        self.loop = loop
    }

    /// Bytes that have left the queue: handed to the connection minus still queued.
    private var sent: Int { written.value - connection.queuedBytes }

    /// Starts checking, once per `timeout`.
    func start() {
        lastSent.store(sent, ordering: .relaxed)
        scheduleCheck()
    }

    /// Stops checking.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        pending.withLock { scheduled in
            scheduled?.cancel()
            scheduled = nil
        }
    }

    private func scheduleCheck() {
        pending.withLock { scheduled in
            guard !cancelled.load(ordering: .acquiring) else { return }
            scheduled = loop.schedule(after: timeout) { [self] in check() }
        }
    }

    private func check() {
        let now = sent
        if now > lastSent.exchange(now, ordering: .relaxed) || connection.queuedBytes == 0 {
            scheduleCheck()
            return
        }
        stalled.fire()
        let connection = self.connection
        Task { await connection.close(flushTimeout: .zero) }
    }
}
