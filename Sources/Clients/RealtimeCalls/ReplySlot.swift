import LiveProtocol
import Locking

/// Where the reply to one request lands: the reader fulfils it, the caller waits for it (whichever comes first).
final class ReplySlot: Sendable {
    private struct State {
        var result: Result<Reply, LiveStreamError>?
        var waiter: CheckedContinuation<Result<Reply, LiveStreamError>, Never>?
    }

    private let state = Locked(State())

    /// Hands over the reply (or the reason there will be none). Only the first call counts.
    func fulfil(_ result: Result<Reply, LiveStreamError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<Reply, LiveStreamError>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    /// Waits for the reply.
    func wait() async throws(LiveStreamError) -> Reply {
        let result = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Reply, LiveStreamError>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }
}
