import Locking
import WebSocket

/// What a ``WebSocketClient``'s callers and its loop-side channel share: the opening result, received messages
/// (bounded in bytes: past the bound the channel stops reading until the caller takes some), the drain wait of
/// senders, and the close.
final class WebSocketInbox: Sendable {
    private struct State {
        var opened: Result<String?, HTTPClientError>?
        var openWaiter: CheckedContinuation<Result<String?, HTTPClientError>, Never>?
        var messages: [WebSocketMessage] = []
        var head = 0
        var bufferedBytes = 0
        var paused = false
        var reader: CheckedContinuation<(WebSocketMessage?, resume: Bool), Never>?
        var closed: WebSocketClose?
        var closeWaiters: [CheckedContinuation<WebSocketClose, Never>] = []
        var drainWaiter: CheckedContinuation<Void, Never>?
        var drained = false
    }

    /// Received bytes past which the channel stops reading.
    let bufferLimit: Int
    private let state = Locked(State())

    init(bufferLimit: Int) {
        self.bufferLimit = bufferLimit
    }

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

    /// The next message, or nil once the WebSocket is closed and every message was taken. One reader at a time.
    /// - Returns: the message and whether the channel should resume reading.
    func next() async -> (WebSocketMessage?, resume: Bool) {
        await withCheckedContinuation { (continuation: CheckedContinuation<(WebSocketMessage?, resume: Bool), Never>) in
            let ready = state.withLock { state -> (WebSocketMessage?, resume: Bool)? in
                if state.head < state.messages.count {
                    let message = state.messages[state.head]
                    state.head += 1
                    state.bufferedBytes -= Self.size(message)
                    if state.head == state.messages.count {
                        state.messages.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    let resume = state.paused && state.bufferedBytes < bufferLimit / 2
                    if resume { state.paused = false }
                    return (message, resume)
                }
                if state.closed != nil { return (nil, false) }
                precondition(state.reader == nil, "WebSocketClient.receive() called while another receive waits")
                state.reader = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// A message arrived (loop thread). Returns true when the channel should stop reading.
    func deliver(_ message: WebSocketMessage) -> Bool {
        typealias Reader = CheckedContinuation<(WebSocketMessage?, resume: Bool), Never>
        let (reader, pause) = state.withLock { state -> (Reader?, Bool) in
            if let reader = state.reader {
                state.reader = nil
                return (reader, false)
            }
            state.messages.append(message)
            state.bufferedBytes += Self.size(message)
            if state.bufferedBytes >= bufferLimit {
                state.paused = true
                return (nil, true)
            }
            return (nil, false)
        }
        // A message handed straight to a waiting reader never pauses reading.
        reader?.resume(returning: (message, false))
        return pause
    }

    private static func size(_ message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }

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

    /// The WebSocket ended (loop thread): wakes the reader (after the buffered messages), senders and closers.
    func didClose(_ close: WebSocketClose) {
        typealias Waiters = (reader: CheckedContinuation<(WebSocketMessage?, resume: Bool), Never>?,
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
        reader?.resume(returning: (nil, false))
        for closer in closers { closer.resume(returning: close) }
        drain?.resume()
    }
}
