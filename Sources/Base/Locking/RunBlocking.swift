import Dispatch

/// Runs async `body` in a detached task and blocks the calling thread until it finishes: the bridge from a
/// synchronous caller with nothing else to do meanwhile (a command's `run`, the benchmark driver) to async code.
/// Never call it from a task or an event loop: it would hold a thread the awaited work may need.
/// - Returns: what `body` returned.
/// - Throws: what `body` threw.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
