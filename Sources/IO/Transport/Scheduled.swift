import Synchronization

/// A handle to work scheduled on an ``EventLoop``; ``cancel()`` keeps it from running.
public final class Scheduled: Sendable {
    private let cancelled = Atomic(false)

    init() {}

    /// Stops the work from running if it has not started yet. Safe to call from any thread, more than once.
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool {
        cancelled.load(ordering: .relaxed)
    }
}
