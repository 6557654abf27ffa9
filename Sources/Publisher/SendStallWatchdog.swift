import Locking
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
///
/// It looks five times per `timeout` and remembers when bytes last moved, so a stall is reported between one and
/// 1.2 timeouts after the last byte left, whenever in the wait that was.
final class SendStallWatchdog: Sendable {
    private let connection: AsyncConnection
    private let written: WriteCounter
    private let stalled: TimeoutFlag
    private let timeout: Duration
    private let interval: Duration
    private let loop: EventLoop
    private let pending = Locked<Scheduled?>(nil)
    private let cancelled = Atomic<Bool>(false)
    /// Bytes that had left the queue at the last check that saw them move, and when that was.
    private let progress = Locked<(sent: Int, at: ContinuousClock.Instant)>((0, .now))

    init(connection: AsyncConnection, written: WriteCounter, stalled: TimeoutFlag, timeout: Duration,
         loop: EventLoop) {
        self.connection = connection
        self.written = written
        self.stalled = stalled
        self.timeout = timeout
        interval = max(.milliseconds(20), timeout / 5)
        self.loop = loop
    }

    /// Bytes that have left the queue: handed to the connection minus still queued.
    private var sent: Int { written.value - connection.queuedBytes }

    /// Starts checking.
    func start() {
        let sent = self.sent
        progress.withLock { $0 = (sent, .now) }
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
            scheduled = loop.schedule(after: interval) { [self] in check() }
        }
    }

    private func check() {
        let now = sent
        let idle = connection.queuedBytes == 0
        let stuck = progress.withLock { progress -> Bool in
            if now > progress.sent || idle {
                progress = (now, .now)
                return false
            }
            return progress.at.duration(to: .now) >= timeout
        }
        guard stuck else {
            scheduleCheck()
            return
        }
        stalled.fire()
        let connection = self.connection
        Task { await connection.close(flushTimeout: .zero) }
    }
}
