import Synchronization

/// Bytes the client handed to its stream so far; written by the client actor, read by the watchdog.
final class WriteCounter: Sendable {
    private let total = Atomic<Int>(0)

    func add(_ count: Int) { total.add(count, ordering: .releasing) }

    var value: Int { total.load(ordering: .acquiring) }
}

/// Set when a timeout fires, read by the awaiting task.
final class TimeoutFlag: Sendable {
    private let fired = Atomic<Bool>(false)

    func fire() { fired.store(true, ordering: .releasing) }

    var hasFired: Bool { fired.load(ordering: .acquiring) }
}

/// Watches the send queue while a caller waits for it to drain. When not one byte leaves the queue for a whole
/// `timeout` (the ingest stopped reading: TCP keeps such a connection open for ever), it raises `stalled` and
/// closes the stream, which ends the wait with an error.
///
/// It runs only during the wait: a timer that looks five times per `timeout` and remembers when bytes last moved,
/// so a stall is reported between one and 1.2 timeouts after the last byte left, whenever in the wait that was.
final class SendStallWatchdog: Sendable {
    private let task: Task<Void, Never>

    init(stream: any ByteStream, written: WriteCounter, stalled: TimeoutFlag, timeout: Duration) {
        let interval = max(.milliseconds(20), timeout / 5)
        task = Task {
            var sent = written.value - stream.queuedBytes
            var movedAt = ContinuousClock.now
            while (try? await Task.sleep(for: interval)) != nil {
                let now = written.value - stream.queuedBytes
                if now > sent || stream.queuedBytes == 0 {
                    sent = now
                    movedAt = .now
                } else if movedAt.duration(to: .now) >= timeout {
                    stalled.fire()
                    await stream.close(flushTimeout: .zero)
                    return
                }
            }
        }
    }

    /// Stops watching.
    func cancel() {
        task.cancel()
    }
}
