import Locking
import WebSocket

/// What a ``WebSocketClient``'s callers and its loop-side channel share: the opening result, the received messages,
/// the drain wait of senders, and the close.
///
/// Messages are pulled: after handing one over, the channel decodes nothing more until the caller asks for the next
/// (so whatever the caller sends in answer, an echo, goes out before anything a later frame causes, such as a
/// close). Undecoded bytes wait in the channel, bounded by ``WebSocketClient/Options/receiveBufferLimit``.
final class WebSocketInbox: Sendable {
    private struct State {
        var opened: Result<String?, HTTPClientError>?
        var openWaiter: CheckedContinuation<Result<String?, HTTPClientError>, Never>?
        var message: WebSocketMessage?
        /// The channel handed over a message and waits for the caller's next pull.
        var held = false
        var reader: CheckedContinuation<WebSocketMessage?, Never>?
        var closed: WebSocketClose?
        var closeWaiters: [CheckedContinuation<WebSocketClose, Never>] = []
        var drainWaiter: CheckedContinuation<Void, Never>?
        var drained = false
        var pongs = 0
    }

    private let state = Locked(State())

    // MARK: Opening

    /// Waits for the handshake's outcome: the agreed subprotocol, or why it failed.
    func waitForOpen() async -> Result<String?, HTTPClientError> {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state -> Result<String?, HTTPClientError>? in
                if let opened = state.opened { return opened }
                state.openWaiter = continuation
                return nil
            }
            if let result { continuation.resume(returning: result) }
        }
    }

    /// The handshake finished (loop thread).
    func didOpen(_ result: Result<String?, HTTPClientError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<String?, HTTPClientError>, Never>? in
            guard state.opened == nil else { return nil }
            state.opened = result
            defer { state.openWaiter = nil }
            return state.openWaiter
        }
        waiter?.resume(returning: result)
    }

    // MARK: Messages

    /// The next message, or nil once the WebSocket is closed. One reader at a time.
    /// - Parameter pull: called (from inside, at most once) when the channel holds back decoding for this call.
    func next(pull: () -> Void) async -> WebSocketMessage? {
        await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketMessage?, Never>) in
            let (ready, mustPull) = state.withLock { state -> (WebSocketMessage??, Bool) in
                if let message = state.message {
                    // Decoding stays held until the caller has answered this one and asks again.
                    state.message = nil
                    return (.some(message), false)
                }
                let mustPull = state.held
                state.held = false
                if state.closed != nil { return (.some(nil), false) }
                precondition(state.reader == nil, "WebSocketClient.receive() called while another receive waits")
                state.reader = continuation
                return (nil, mustPull)
            }
            if mustPull { pull() }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// A message arrived (loop thread): the channel holds decoding until the next pull.
    func deliver(_ message: WebSocketMessage) {
        let reader = state.withLock { state -> CheckedContinuation<WebSocketMessage?, Never>? in
            state.held = true
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.message = message
            return nil
        }
        reader?.resume(returning: message)
    }

    /// Whether the channel must wait for a pull before decoding more.
    var isHeld: Bool { state.withLock { $0.held } }

    // MARK: Sending

    /// Waits until ``didDrain()`` after a send found the queue high.
    func waitForDrain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.drained || state.closed != nil {
                    state.drained = false
                    return true
                }
                state.drainWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// A send is about to check the queue: forget an older drain.
    func expectDrain() {
        state.withLock { $0.drained = false }
    }

    /// The send queue drained (loop thread).
    func didDrain() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.drainWaiter else {
                state.drained = true
                return nil
            }
            state.drainWaiter = nil
            return waiter
        }
        waiter?.resume()
    }

    // MARK: Pongs

    /// Pongs received so far.
    var pongsReceived: Int { state.withLock { $0.pongs } }

    /// A pong arrived (loop thread).
    func didReceivePong() {
        state.withLock { $0.pongs += 1 }
    }

    // MARK: Closing

    /// How the WebSocket ended, once it has.
    var closeInfo: WebSocketClose? { state.withLock { $0.closed } }

    /// Waits for the end.
    func waitForClose() async -> WebSocketClose {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { state -> WebSocketClose? in
                if let closed = state.closed { return closed }
                state.closeWaiters.append(continuation)
                return nil
            }
            if let closed { continuation.resume(returning: closed) }
        }
    }

    /// The WebSocket ended (loop thread): wakes the reader (after a message still held), senders and closers.
    func didClose(_ close: WebSocketClose) {
        typealias Waiters = (reader: CheckedContinuation<WebSocketMessage?, Never>?,
                             closers: [CheckedContinuation<WebSocketClose, Never>],
                             drain: CheckedContinuation<Void, Never>?)
        let (reader, closers, drain) = state.withLock { state -> Waiters in
            guard state.closed == nil else { return (nil, [], nil) }
            state.closed = close
            defer {
                state.reader = nil
                state.closeWaiters = []
                state.drainWaiter = nil
            }
            return (state.reader, state.closeWaiters, state.drainWaiter)
        }
        reader?.resume(returning: nil)
        for closer in closers { closer.resume(returning: close) }
        drain?.resume()
    }
}
