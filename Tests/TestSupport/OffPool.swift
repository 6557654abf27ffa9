import Foundation

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
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
        let thread = Thread {
            continuation.resume(with: Swift.Result { try body() })
        }
        thread.name = name
        thread.start()
    }
}
