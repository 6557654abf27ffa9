import Foundation
import Network
import Publisher
import StreamCore
import Synchronization

/// Network.framework's TCP or TLS (from the URL's scheme: `rtmps` → TLS, port 443 by default) as the RTMP client's
/// byte stream: what the phone supplies so that it runs the same RTMP client, outputs and reconnects as Linux.
struct NetworkConnector: ByteStreamConnector {
    func connect(to url: IngestURL, timeout: Duration) async throws(LinkError) -> any ByteStream {
        let stream = NetworkStream(url: url)
        try await stream.open(timeout: timeout)
        return stream
    }
}

/// One `NWConnection`. Writes are counted until Network.framework has processed them (`queuedBytes`); reads and
/// waits are continuations resumed from the connection's callbacks. Every decision about what an error means is
/// `LinkError.kind(posix:)` and the client's, tested on Linux.
final class NetworkStream: ByteStream {
    let endpoint: String
    private let connection: NWConnection
    private let queue = DispatchQueue(label: "com.joeblau.Stream.rtmp")
    private let state = Mutex(State())

    private struct State {
        var queued = 0
        var failure: LinkError?
        var closed = false
        var opened: CheckedContinuation<Void, any Error>?
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        var drainWaiters: [(threshold: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    /// The largest read.
    static let readSize = 64 * 1024

    init(url: IngestURL) {
        endpoint = "\(url.hostForURL):\(url.port)"
        let port = NWEndpoint.Port(rawValue: UInt16(clamping: url.port)) ?? (url.usesTLS ? 443 : 1935)
        connection = NWConnection(host: NWEndpoint.Host(url.host), port: port, using: url.usesTLS ? .tls : .tcp)
    }

    /// Starts the connection and returns once it is ready (or failed, or `timeout` passed).
    func open(timeout: Duration) async throws(LinkError) {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { $0.opened = continuation }
                connection.stateUpdateHandler = { [weak self] state in self?.changed(state) }
                connection.start(queue: queue)
                let seconds = Double(timeout.components.seconds)
                queue.asyncAfter(deadline: .now() + seconds) { [weak self] in
                    guard let self, state.withLock({ $0.opened != nil }) else { return }
                    fail(LinkError(.timedOut, "connecting to \(endpoint) timed out"))
                }
            }
        }
    }

    var queuedBytes: Int { state.withLock { $0.queued } }

    func write(_ bytes: [UInt8]) throws(LinkError) {
        let refusal = state.withLock { state -> LinkError? in
            if let failure = state.failure { return failure }
            if state.closed { return LinkError(.closed, "the connection to \(endpoint) is closed") }
            state.queued += bytes.count
            return nil
        }
        if let refusal { throw refusal }
        connection.send(content: Data(bytes), completion: .contentProcessed { [weak self] error in
            if let error { self?.fail(LinkError(error, endpoint: self?.endpoint ?? "")) }
            self?.dequeued(bytes.count)
        })
    }

    func read() async throws(LinkError) -> [UInt8]? {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let now = state.withLock { state -> Result<[UInt8]?, LinkError>? in
                    if let failure = state.failure { return .failure(failure) }
                    if state.closed { return .success(nil) }
                    state.reader = continuation
                    return nil
                }
                if let now {
                    continuation.resume(with: now.mapError { $0 as any Error })
                    return
                }
                connection.receive(minimumIncompleteLength: 1, maximumLength: Self.readSize) { [weak self] data, _,
                                                                                               done, error in
                    guard let self else { return }
                    let reader = state.withLock { state in
                        defer { state.reader = nil }
                        return state.reader
                    }
                    if let data, !data.isEmpty {
                        reader?.resume(returning: [UInt8](data))
                    } else if state.withLock({ $0.closed }) || done {
                        reader?.resume(returning: nil)
                    } else if let error {
                        let failure = LinkError(error, endpoint: endpoint)
                        fail(failure)
                        reader?.resume(throwing: failure)
                    } else {
                        reader?.resume(returning: nil)
                    }
                }
            }
        }
    }

    func waitForDrain(below threshold: Int) async throws(LinkError) {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, LinkError>? in
                    if let failure = state.failure { return .failure(failure) }
                    if state.queued < threshold { return .success(()) }
                    state.drainWaiters.append((threshold, continuation))
                    return nil
                }
                if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
            }
        }
    }

    /// Network.framework does not report acknowledged bytes: the engine measures what its send completions say.
    func bytesAcknowledged() async -> Int? { nil }

    func close(flushTimeout: Duration) async {
        let reader = state.withLock { state in
            state.closed = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once()
            let finish: @Sendable () -> Void = { [connection] in
                guard once.claim() else { return }
                connection.cancel()
                continuation.resume()
            }
            connection.send(content: nil, contentContext: .finalMessage, isComplete: true,
                            completion: .contentProcessed { _ in finish() })
            queue.asyncAfter(deadline: .now() + Double(flushTimeout.components.seconds)) { finish() }
        }
    }

    // MARK: - Callbacks (on `queue`)

    private func changed(_ newState: NWConnection.State) {
        switch newState {
        case .ready:
            state.withLock { state in
                defer { state.opened = nil }
                return state.opened
            }?.resume()
        case .waiting(let error):
            // A broadcast does not wait for the network to come back: the attempt fails now; the engine's
            // backoff decides when to try again.
            fail(LinkError(error, endpoint: endpoint, pathUnsatisfied: connection.currentPath?.status == .unsatisfied))
        case .failed(let error):
            fail(LinkError(error, endpoint: endpoint))
        case .cancelled:
            fail(LinkError(.closed, "the connection to \(endpoint) was closed"))
        case .setup, .preparing:
            break
        @unknown default:
            break
        }
    }

    private func dequeued(_ count: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.queued -= count
            var ready: [CheckedContinuation<Void, any Error>] = []
            state.drainWaiters.removeAll { waiter in
                guard state.queued < waiter.threshold else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// The first failure ends the stream: whoever waits hears of it.
    private func fail(_ error: LinkError) {
        let (opened, reader, waiters) = state.withLock { state in
            if state.failure == nil && !state.closed { state.failure = error }
            defer {
                state.opened = nil
                state.reader = nil
                state.drainWaiters = []
            }
            return (state.opened, state.reader, state.drainWaiters)
        }
        let failure = state.withLock { $0.failure } ?? error
        opened?.resume(throwing: failure)
        reader?.resume(throwing: failure)
        for waiter in waiters { waiter.continuation.resume(throwing: failure) }
        if opened != nil { connection.cancel() }
    }
}

extension LinkError {
    /// The link error for a Network.framework error: POSIX codes through ``LinkError/kind(posix:)``, DNS and TLS
    /// by their domain, an unsatisfied path as no path at all.
    init(_ error: NWError, endpoint: String, pathUnsatisfied: Bool = false) {
        if pathUnsatisfied {
            self.init(.noPath, "no network path to \(endpoint): \(error)")
            return
        }
        switch error {
        case .posix(let code): self.init(LinkError.kind(posix: code), "\(endpoint): \(error)")
        case .dns: self.init(.dns, "cannot resolve \(endpoint): \(error)")
        case .tls: self.init(.tls, "TLS with \(endpoint) failed: \(error)")
        @unknown default: self.init(.closed, "\(endpoint): \(error)")
        }
    }
}

/// True for the first caller only: the flush's completion and its timeout race to close.
private final class Once: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { value in
            defer { value = true }
            return !value
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
