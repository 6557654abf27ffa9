import Foundation

/// A serial executor backed by one dedicated thread, for the session's real-time media work.
///
/// Rendering, compositing and x264/AAC encoding are blocking C calls of several milliseconds per frame. On the
/// shared cooperative pool (one thread per core) they would stall other tasks, and any other code blocking the pool
/// would make the live pipeline miss its frame deadlines. The session actor runs here instead; awaiting a sleep or
/// another actor still suspends normally and resumes on this thread.
final class MediaThreadExecutor: SerialExecutor, @unchecked Sendable {
    // Safe: `jobs`, `isStarted` and `isShutDown` are only read or written while holding `condition`'s lock; `name`
    // and `condition` are immutable.
    private let condition = NSCondition()
    private let name: String
    private var jobs: [UnownedJob] = []
    private var isStarted = false
    private var isShutDown = false

    /// Creates the executor; its thread starts with the first job (so an executor never used costs no thread).
    /// - Parameter name: the thread's name (shown by debuggers and `top -H`).
    init(name: String) {
        self.name = name
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        let start = !isStarted
        isStarted = true
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
    }

    /// Lets the thread exit once the jobs already queued have run.
    func shutDown() {
        condition.lock()
        isShutDown = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !isShutDown { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }
}
