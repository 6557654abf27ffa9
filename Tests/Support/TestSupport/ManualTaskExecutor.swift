import Locking

/// A task executor that runs nothing by itself: tasks started on it (`Task(executorPreference:)`) advance only in
/// ``runUntilIdle()``, on the test's own thread. When that returns, each of them has run to the point where it waits
/// for something outside (a continuation another task must resume, a timer) or has finished, so a test can say "the
/// waiter is parked now" without sleeping and hoping it is.
public final class ManualTaskExecutor: TaskExecutor {
    private let jobs = Locked<[UnownedJob]>([])

    /// An executor with no work.
    public init() {}

    /// Queues `job` for the next ``runUntilIdle()``.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs the queued jobs, and those they queue, until none is left.
    public func runUntilIdle() {
        while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
