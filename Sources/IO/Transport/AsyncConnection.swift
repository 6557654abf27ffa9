import Locking
import Synchronization

/// A client ``Connection`` for async code (an actor): connect, write, read, wait for the queue to drain, close.
///
/// Thread-safe. Writes are queued without waiting; ``queuedBytes`` and ``waitForDrain(below:)`` give the
/// caller backpressure. Incoming bytes are buffered up to a bound, past which reading pauses until ``read()``.
public final class AsyncConnection: Sendable {
    /// "host:port" as dialled; used in error messages.
    public let endpoint: String
    /// The most bytes that may be queued for sending; ``write(_:)`` throws beyond it.
    public let writeBufferLimit: Int

    private let core: AsyncConnectionCore
    private let connection: LoopBound<Connection>

    fileprivate init(core: AsyncConnectionCore, connection: LoopBound<Connection>) {
        self.core = core
        self.connection = connection
        self.endpoint = core.endpoint
        self.writeBufferLimit = core.writeBufferLimit
    }

    deinit {
        connection.loop.execute { [connection] in connection.value.close() }
    }

    /// Connects to `host:port`, over TLS if `tls` is given, and returns once the connection is ready.
    /// - Parameters:
    ///   - tls: TLS settings; the certificate is always verified against the system store (plus `caFile`).
    ///   - timeout: bounds DNS, TCP connect and the TLS handshake together.
    ///   - writeBufferLimit: the most bytes ``write(_:)`` may have queued.
    ///   - readBufferLimit: incoming bytes buffered before reading pauses until the next ``read()``.
    ///   - sendBufferSize: the kernel's send buffer (SO_SNDBUF); nil for the kernel's auto-tuning.
    ///   - loop: the event loop that drives the socket.
    /// - Throws: ``TransportError``: `.dnsFailure`, `.connectionRefused`, `.tlsFailure`, `.timeout`, `.closed`.
    public static func connect(host: String, port: Int, tls: TLSClientConfiguration? = nil, timeout: Duration,
                               writeBufferLimit: Int = 16 * 1024 * 1024, readBufferLimit: Int = 1024 * 1024,
                               sendBufferSize: Int? = nil,
                               loop: EventLoop) async throws(TransportError) -> AsyncConnection {
        let core = AsyncConnectionCore(endpoint: endpointName(host: host, port: port), loop: loop,
                                       writeBufferLimit: writeBufferLimit, readBufferLimit: readBufferLimit)
        return try await transportErrors {
            try await withCheckedThrowingContinuation { continuation in
                let accepted = loop.tryExecute {
                    let bridge = AsyncConnectionBridge(core: core, opened: continuation)
                    let connection = Connection.connect(host: host, port: port, tls: tls, timeout: timeout,
                                                        sendBufferSize: sendBufferSize, on: loop, handler: bridge)
                    connection.writeBufferLimit = writeBufferLimit
                    connection.onDequeued = { count in core.didDequeue(count) }
                }
                if !accepted { continuation.resume(throwing: TransportError.loopShutDown) }
            }
        }
    }

    /// Bytes accepted by ``write(_:)`` and not yet handed to the kernel.
    public var queuedBytes: Int {
        core.queued.load(ordering: .acquiring)
    }

    /// Bytes the peer has acknowledged so far (see ``Connection/bytesAcknowledged``); nil once closed or unknown.
    public func bytesAcknowledged() async -> Int? {
        let connection = self.connection
        return try? await connection.loop.submit { connection.value.bytesAcknowledged }
    }

    /// Queues `bytes` for sending and returns at once.
    /// - Throws: ``TransportError`` `.bufferLimitExceeded` if the queue would pass ``writeBufferLimit`` (nothing
    ///   is queued), or the error that closed the connection.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        if let error = core.closeReason() { throw error }
        guard !bytes.isEmpty else { return }
        try core.reserve(bytes.count)
        let connection = self.connection
        let core = self.core
        let accepted = connection.loop.tryExecute {
            do {
                try connection.value.write(bytes)
            } catch {
                // Closed meanwhile: the close is reported to readers and waiters; just give the bytes back.
                core.didDequeue(bytes.count)
            }
        }
        if !accepted {
            core.didDequeue(bytes.count)
            throw .loopShutDown
        }
    }

    /// The next bytes from the peer (everything buffered so far), or nil once the peer closed in an orderly way
    /// or ``close()`` was called. One reader at a time.
    /// - Throws: the ``TransportError`` that ended the connection (reset, TLS failure, idle timeout...).
    public func read() async throws(TransportError) -> [UInt8]? {
        let result: [UInt8]? = try await transportErrors {
            try await withCheckedThrowingContinuation { continuation in core.read(continuation) }
        }
        if core.takeResumeRequest() {
            let connection = self.connection
            connection.loop.execute { connection.value.resumeReading() }
        }
        return result
    }

    /// Returns once ``queuedBytes`` is below `threshold`.
    /// - Throws: the ``TransportError`` that closed the connection (queued bytes are then lost), or `.closed` if
    ///   it was closed in an orderly way with bytes still queued.
    public func waitForDrain(below threshold: Int) async throws(TransportError) {
        try await transportErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                core.waitForDrain(below: threshold, continuation)
            }
        }
    }

    /// Sends what is queued (waiting at most `flushTimeout`), then closes. Pending and later reads return nil.
    public func close(flushTimeout: Duration = .seconds(2)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            guard core.addCloseWaiter(continuation) else {
                continuation.resume()
                return
            }
            let connection = self.connection
            // If the loop has shut down, its shutdown closes the connection and resumes the waiter.
            _ = connection.loop.tryExecute { connection.value.closeAfterFlush(timeout: flushTimeout) }
        }
    }

    fileprivate static func opened(core: AsyncConnectionCore, connection: Connection) -> AsyncConnection {
        AsyncConnection(core: core, connection: LoopBound(connection, loop: connection.loop))
    }
}

/// Narrows the error of a checked continuation, which only ever carries a ``TransportError`` here.
private func transportErrors<Result>(_ body: () async throws -> Result) async throws(TransportError) -> Result {
    do {
        return try await body()
    } catch let error as TransportError {
        throw error
    } catch {
        throw TransportError(.io, "unexpected error: \(error)")
    }
}

/// The loop-side handler of an ``AsyncConnection``: moves events into the shared core.
private final class AsyncConnectionBridge: ConnectionHandler {
    private let core: AsyncConnectionCore
    private var opened: CheckedContinuation<AsyncConnection, any Error>?

    init(core: AsyncConnectionCore, opened: CheckedContinuation<AsyncConnection, any Error>) {
        self.core = core
        self.opened = opened
    }

    func connectionDidOpen(_ connection: Connection) {
        opened?.resume(returning: .opened(core: core, connection: connection))
        opened = nil
    }

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        if core.didRead(bytes) { connection.pauseReading() }
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        if let opened {
            self.opened = nil
            opened.resume(throwing: error ?? .peerClosed(connection.endpoint, "closed the connection while opening"))
            return
        }
        core.didClose(error)
    }
}

/// The state an ``AsyncConnection``'s callers and its loop-side handler share.
private final class AsyncConnectionCore: Sendable {
    let endpoint: String
    let loop: EventLoop
    let writeBufferLimit: Int
    let readBufferLimit: Int
    /// Bytes reserved by writers and not yet sent or dropped.
    let queued = Atomic<Int>(0)
    private let state = Locked(State())

    private struct State {
        var inbound: [UInt8] = []
        var readingPaused = false
        var resumeRequested = false
        var finished = false
        var error: TransportError?
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        var drainWaiters: [(threshold: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    init(endpoint: String, loop: EventLoop, writeBufferLimit: Int, readBufferLimit: Int) {
        self.endpoint = endpoint
        self.loop = loop
        self.writeBufferLimit = writeBufferLimit
        self.readBufferLimit = readBufferLimit
    }

    // MARK: Caller side

    func closeReason() -> TransportError? {
        state.withLock { state in state.finished ? (state.error ?? .closed(endpoint)) : nil }
    }

    func reserve(_ count: Int) throws(TransportError) {
        var current = queued.load(ordering: .relaxed)
        while true {
            guard current + count <= writeBufferLimit else {
                throw .bufferFull(endpoint, queued: current, adding: count, limit: writeBufferLimit)
            }
            let (exchanged, original) = queued.compareExchange(expected: current, desired: current + count,
                                                               ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    func read(_ continuation: CheckedContinuation<[UInt8]?, any Error>) {
        enum Outcome { case bytes([UInt8]), end, failed(TransportError), wait }
        let outcome = state.withLock { state -> Outcome in
            precondition(state.reader == nil, "AsyncConnection.read() called while another read is waiting")
            if !state.inbound.isEmpty {
                let bytes = state.inbound
                state.inbound = []
                if state.readingPaused {
                    state.readingPaused = false
                    state.resumeRequested = true
                }
                return .bytes(bytes)
            }
            if state.finished { return state.error.map { .failed($0) } ?? .end }
            state.reader = continuation
            return .wait
        }
        switch outcome {
        case .bytes(let bytes): continuation.resume(returning: bytes)
        case .end: continuation.resume(returning: nil)
        case .failed(let error): continuation.resume(throwing: error)
        case .wait: break
        }
    }

    /// True once after a read emptied a buffer that had paused reading: the caller then resumes reading.
    func takeResumeRequest() -> Bool {
        state.withLock { state in
            defer { state.resumeRequested = false }
            return state.resumeRequested
        }
    }

    func waitForDrain(below threshold: Int, _ continuation: CheckedContinuation<Void, any Error>) {
        let failure = state.withLock { state -> TransportError?? in
            // A close with an error dropped whatever was queued: report it even though the count is now zero.
            if state.finished, let error = state.error { return .some(error) }
            if queued.load(ordering: .acquiring) < threshold { return .some(nil) }
            if state.finished { return .some(.closed(endpoint)) }
            state.drainWaiters.append((threshold, continuation))
            return .none
        }
        switch failure {
        case .none: break
        case .some(.none): continuation.resume()
        case .some(.some(let error)): continuation.resume(throwing: error)
        }
    }

    func addCloseWaiter(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.closeWaiters.append(continuation)
            return true
        }
    }

    // MARK: Loop side

    /// Buffers incoming bytes; returns true when reading should pause.
    func didRead(_ bytes: [UInt8]) -> Bool {
        let (reader, pause) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, Bool) in
            if let reader = state.reader {
                state.reader = nil
                return (reader, false)
            }
            state.inbound.append(contentsOf: bytes)
            if state.inbound.count >= readBufferLimit {
                state.readingPaused = true
                return (nil, true)
            }
            return (nil, false)
        }
        reader?.resume(returning: bytes)
        return pause
    }

    func didDequeue(_ count: Int) {
        let remaining = queued.subtract(count, ordering: .acquiringAndReleasing).newValue
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard !state.drainWaiters.isEmpty else { return [] }
            var ready: [CheckedContinuation<Void, any Error>] = []
            state.drainWaiters.removeAll { waiter in
                guard remaining < waiter.threshold else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func didClose(_ error: TransportError?) {
        let (reader, drainWaiters, closeWaiters, pending) = state.withLock { state in
            state.finished = true
            state.error = error
            defer {
                state.reader = nil
                state.drainWaiters = []
                state.closeWaiters = []
            }
            return (state.reader, state.drainWaiters, state.closeWaiters, queued.load(ordering: .acquiring))
        }
        if let error {
            reader?.resume(throwing: error)
        } else {
            reader?.resume(returning: nil)
        }
        for waiter in drainWaiters {
            if pending < waiter.threshold {
                waiter.continuation.resume()
            } else {
                waiter.continuation.resume(throwing: error ?? .closed(endpoint))
            }
        }
        for waiter in closeWaiters { waiter.resume() }
    }
}
