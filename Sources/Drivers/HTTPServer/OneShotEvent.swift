import Locking

/// Something that happens once and can be awaited: the end of a request's connection (so a handler still working
/// for it, such as a blocking playlist reload, is cancelled instead of finishing for nobody), or the end of a
/// server's shutdown.
final class OneShotEvent: Sendable {
    private struct State {
        var ended = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Marks the event as happened and wakes the waiter. Idempotent; callable from any thread.
    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the event happened, or when the calling task is cancelled. One waiter at a time.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.ended || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Runs `work` until it finishes or the event happens, whichever comes first; in the second case `work`'s task
    /// is cancelled and the result is nil.
    func race<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) async -> Result? {
        await withTaskGroup(of: Result?.self) { group in
            group.addTask { await work() }
            group.addTask {
                await self.wait()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
