import Synchronization

/// The answer to a request that a handler gives later, from any thread, without a task waiting for it (see
/// ``HTTPRouter/ImmediateOrLater/later(_:)``): an LL-HLS origin keeps it with the held request and answers when the
/// part exists. If the client disconnects first, the cancel handler runs and the response is no longer wanted.
public final class HTTPPendingResponse: Sendable {
    private struct State {
        var finished = false
        var cancelled = false
        var onCancel: (@Sendable () -> Void)?
    }

    /// Inline (a futex), not a heap-allocated pthread mutex: a server holding hundreds of LL-HLS requests makes one
    /// of these for each.
    private let state = Mutex(State())
    private let deliver: @Sendable (HTTPResponse) -> Void

    init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.deliver = deliver
    }

    /// Sends `response` (on the server's event loop). Only the first call counts; after a cancellation it does
    /// nothing.
    public func respond(_ response: HTTPResponse) {
        let first = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            state.onCancel = nil
            return true
        }
        if first { deliver(response) }
    }

    /// Runs `handler` if the client disconnects before the response is given (at once if it already has). One
    /// handler; a later call replaces it.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard !state.finished else { return state.cancelled }
            state.onCancel = handler
            return false
        }
        if runNow { handler() }
    }

    /// The client disconnected (or the connection moved on): the response is no longer wanted.
    func cancel() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.cancelled = true
            defer { state.onCancel = nil }
            return state.onCancel
        }
        handler?()
    }
}
