/// Runs the async handlers of a server's requests as child tasks of one task group, which the server owns: stopping
/// the server cancels whatever still runs.
///
/// The job queue has no fixed bound, but it cannot grow past the server's connection limit: each connection has at
/// most one request (or one streamed body) in a handler at a time.
final class HandlerRunner: Sendable {
    typealias Job = @Sendable () async -> Void

    private let jobs: AsyncStream<Job>.Continuation
    private let task: Task<Void, Never>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        jobs = continuation
        // The one long-lived task of the server: its group is the parent of every handler's task.
        task = Task {
            await withDiscardingTaskGroup { group in
                for await job in stream {
                    group.addTask { await job() }
                }
            }
        }
    }

    /// Starts `job` as a child task.
    func run(_ job: @escaping Job) {
        jobs.yield(job)
    }

    /// Stops taking jobs and cancels the running ones.
    func shutdown() {
        jobs.finish()
        task.cancel()
    }
}
