import Foundation
import Locking

/// Runs blocking work (a subprocess to completion, a scripted socket peer) on a thread of its own and awaits its
/// result, so the awaiting test does not hold one of the few threads of Swift's cooperative pool while the code
/// under test needs them (an HTTP server's async handlers run there: with the pool's threads blocked, they start
/// seconds late).
/// - Parameters:
///   - name: the thread's name.
///   - body: the blocking work.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws.
public func offPool<Result: Sendable>(_ name: String = "test-blocking",
                                      _ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await OffPoolTask(name, body).value
}

/// Blocking work started at once on a thread of its own, its result awaited later.
///
/// `async let served = offPool { ... }` starts the work only once its child task gets a thread of the cooperative
/// pool (2 on a 2-core machine), and in a parallel run other tests' blocking calls can hold both for many seconds:
/// a server started that way was not listening 10 s later. Here the thread starts in `init`, so the work is running
/// when the next line runs, however busy the pool is.
public final class OffPoolTask<Result: Sendable>: Sendable {
    private enum State {
        case running(waiters: [CheckedContinuation<Result, any Error>])
        case finished(Swift.Result<Result, any Error>)
    }

    private let state = Locked(State.running(waiters: []))

    /// Starts `body` on a new thread named `name`.
    public init(_ name: String = "test-blocking", _ body: @escaping @Sendable () throws -> Result) {
        let state = self.state
        let thread = Thread {
            let result = Swift.Result { try body() }
            let waiters = state.withLock { state -> [CheckedContinuation<Result, any Error>] in
                guard case .running(let waiters) = state else { return [] }
                state = .finished(result)
                return waiters
            }
            for waiter in waiters { waiter.resume(with: result) }
        }
        thread.name = name
        thread.start()
    }

    /// What the work returned, once it has (at once if it already has).
    /// - Throws: what the work threw.
    public var value: Result {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let finished = state.withLock { state -> Swift.Result<Result, any Error>? in
                    switch state {
                    case .running(let waiters):
                        state = .running(waiters: waiters + [continuation])
                        return nil
                    case .finished(let result):
                        return result
                    }
                }
                if let finished { continuation.resume(with: finished) }
            }
        }
    }
}
