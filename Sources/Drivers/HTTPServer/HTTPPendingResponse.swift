import Synchronization
import Transport

/// The answer to a request that a handler gives later, from any thread, without a task waiting for it (see
/// ``HTTPRouter/ImmediateOrLater/later(_:)``): an LL-HLS origin keeps it with the held request and answers when the
/// part exists. If the client disconnects first, the cancel handler runs and the response is no longer wanted.
public final class HTTPPendingResponse: Sendable {
    private struct State {
        var finished = false
        var cancelled = false
        var onCancel: (@Sendable () -> Void)?
        /// The response given, until the loop takes it to send.
        var response: HTTPResponse?
    }

    /// Inline (a futex), not a heap-allocated pthread mutex: a server holding hundreds of LL-HLS requests makes one
    /// of these for each.
    private let state = Mutex(State())
    /// The connection that sends the response, on its loop, and the exchange the response answers (a late answer
    /// for a connection that moved on is dropped there).
    private let connection: LoopBound<HTTPServerConnection>
    private let exchange: UInt64

    init(connection: LoopBound<HTTPServerConnection>, exchange: UInt64) {
        self.connection = connection
        self.exchange = exchange
    }

    /// Sends `response` (on the server's event loop). Only the first call counts; after a cancellation it does
    /// nothing.
    public func respond(_ response: consuming HTTPResponse) {
        // Moved in, not copied (a copy retains the fields and the body once more).
        var given = Optional(response)
        let first = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            state.onCancel = nil
            state.response = given.take()
            return true
        }
        // The closure captures one reference, this object, which is then its context: handing hundreds of
        // released answers to the loop allocates nothing per answer.
        if first { connection.loop.execute { self.send() } }
    }

    /// On the loop: the response goes out.
    private func send() {
        guard let response = state.withLock({ $0.response.take() }) else { return }
        connection.value.finishAsync(response, exchange: exchange)
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
