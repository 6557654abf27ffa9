import Locking
import StreamCore

/// A ``ByteStream`` over a ``CallbackTransport`` (an `NWConnection` on iOS): the continuations the stream's callers
/// wait on, resumed as ``ByteStreamMachine`` decides, the open's timeout and the close's bounded flush.
///
/// The transport only makes its platform's calls; everything a broadcast relies on (the first failure reaches every
/// waiter, a close ends a pending read, a 0.5 s timeout is 0.5 s) is here, tested on Linux with a scripted
/// transport. Thread-safe: the machine is behind a lock, and continuations are resumed outside it.
public final class CallbackByteStream<Transport: CallbackTransport>: ByteStream {
    /// "host:port" as dialled, for messages.
    public let endpoint: String
    /// The transport the stream drives.
    public let transport: Transport
    private let machine: Locked<ByteStreamMachine<Waiter>>

    /// A caller waiting: `open`'s, `read`'s or `waitForDrain`'s continuation.
    private enum Waiter {
        case open(CheckedContinuation<Void, any Error>)
        case read(CheckedContinuation<[UInt8]?, any Error>)
        case drain(CheckedContinuation<Void, any Error>)
    }

    /// The largest read asked of the transport.
    public static var readSize: Int { 64 * 1024 }

    /// Creates a stream that is not open yet: call ``open(timeout:)``.
    /// - Parameters:
    ///   - url: the ingest; its host and port name the stream in messages.
    ///   - transport: the connection to it, not started.
    public init(url: IngestURL, transport: Transport) {
        endpoint = "\(url.hostForURL):\(url.port)"
        self.transport = transport
        machine = Locked(ByteStreamMachine(endpoint: endpoint))
    }

    /// Starts the transport and returns once it is ready.
    /// - Parameter timeout: how long the open may take; then the stream fails as timed out.
    /// - Throws: the ``LinkError`` the transport failed with, or `.timedOut`.
    public func open(timeout: Duration) async throws(LinkError) {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                resume(machine.withLock { $0.opening(.open(continuation)) })
                transport.start { [weak self] event in self?.changed(event) }
                transport.schedule(afterSeconds: timeout.fractionalSeconds) { [weak self] in
                    guard let self, machine.withLock({ $0.isOpening }) else { return }
                    fail(LinkError(.timedOut, "connecting to \(endpoint) timed out"))
                }
            }
        }
    }

    /// Bytes written that the transport has not processed yet.
    public var queuedBytes: Int { machine.withLock { $0.queuedBytes } }

    /// Hands the bytes to the transport and returns at once.
    /// - Throws: the error that ended the stream, or `.closed` after ``close(flushTimeout:)``.
    public func write(_ bytes: [UInt8]) throws(LinkError) {
        let count = bytes.count
        if let refusal = machine.withLock({ $0.write(count: count) }) { throw refusal }
        transport.send(bytes) { [weak self] failure in
            guard let self else { return }
            if let failure { fail(failure.linkError(endpoint: endpoint)) }
            resume(machine.withLock { $0.processed(count: count) })
        }
    }

    /// The next bytes from the peer, or nil once it ended the stream or the stream was closed.
    /// - Throws: the ``LinkError`` that ended the stream.
    public func read() async throws(LinkError) -> [UInt8]? {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let now = machine.withLock { $0.reading(.read(continuation)) }
                if !now.isEmpty {
                    resume(now)
                    return
                }
                transport.receive(maximumLength: Self.readSize) { [weak self] bytes, done, failure in
                    guard let self else { return }
                    let error = failure?.linkError(endpoint: endpoint)
                    resume(machine.withLock { $0.received(hasData: !bytes.isEmpty, done: done, error: error) },
                           bytes: bytes)
                }
            }
        }
    }

    /// Returns once fewer than `threshold` bytes are queued.
    /// - Throws: the ``LinkError`` that ended the stream meanwhile.
    public func waitForDrain(below threshold: Int) async throws(LinkError) {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                resume(machine.withLock { $0.drainWait(below: threshold, .drain(continuation)) })
            }
        }
    }

    /// Nil: a callback transport does not report acknowledged bytes; the engine measures what its send
    /// completions say.
    public func bytesAcknowledged() async -> Int? { nil }

    /// Ends a pending read, sends the end of the stream and cancels the transport once that is processed or
    /// `flushTimeout` passed, whichever comes first.
    public func close(flushTimeout: Duration) async {
        resume(machine.withLock { $0.close() })
        let transport = self.transport
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let claimed = Locked(false)
            // The end's completion and the timeout race: the first cancels and returns.
            let finish: @Sendable () -> Void = {
                let first = claimed.withLock { value in
                    defer { value = true }
                    return !value
                }
                guard first else { return }
                transport.cancel()
                continuation.resume()
            }
            transport.sendEnd { finish() }
            transport.schedule(afterSeconds: flushTimeout.fractionalSeconds) { finish() }
        }
    }

    // MARK: - Private

    private func changed(_ event: CallbackTransportEvent) {
        switch event {
        case .ready: resume(machine.withLock { $0.ready() })
        case .failed(let failure): fail(failure.linkError(endpoint: endpoint))
        case .cancelled: fail(LinkError(.closed, "the connection to \(endpoint) was closed"))
        }
    }

    /// The first failure ends the stream: whoever waits hears of it.
    private func fail(_ error: LinkError) {
        resume(machine.withLock { $0.fail(error) })
    }

    /// Resumes what the machine returned, outside its lock; an open that failed also cancels the transport.
    /// - Parameter bytes: a read's bytes, for a `.data` outcome.
    private func resume(_ resumptions: [ByteStreamMachine<Waiter>.Resumption], bytes: [UInt8] = []) {
        for (waiter, outcome) in resumptions {
            switch (waiter, outcome) {
            case (.open(let continuation), .ready), (.drain(let continuation), .ready):
                continuation.resume()
            case (.open(let continuation), .failure(let failure)):
                continuation.resume(throwing: failure)
                transport.cancel()
            case (.drain(let continuation), .failure(let failure)):
                continuation.resume(throwing: failure)
            case (.read(let continuation), .data):
                continuation.resume(returning: bytes)
            case (.read(let continuation), .end), (.read(let continuation), .ready):
                continuation.resume(returning: nil)
            case (.read(let continuation), .failure(let failure)):
                continuation.resume(throwing: failure)
            // The machine never answers an open or a drain wait with data or an end; resumed so that none hangs.
            case (.open(let continuation), .data), (.open(let continuation), .end),
                 (.drain(let continuation), .data), (.drain(let continuation), .end):
                continuation.resume()
            }
        }
    }
}

/// Narrows a checked continuation's error, which only ever carries a `LinkError` here.
private func linkErrors<Result>(_ body: () async throws -> Result) async throws(LinkError) -> Result {
    do {
        return try await body()
    } catch let error as LinkError {
        throw error
    } catch {
        throw LinkError(.closed, "\(error)")
    }
}

extension Duration {
    /// The duration in seconds with its fraction (issue 35 defect 8: `components.seconds` alone made a 0.5 s flush
    /// timeout 0).
    var fractionalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
