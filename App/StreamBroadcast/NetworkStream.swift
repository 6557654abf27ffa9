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

/// One `NWConnection`. Who waits for what, and what each callback wakes, is Publisher's `ByteStreamMachine`,
/// tested on Linux; this class only starts the transport's calls and resumes the continuations the machine names.
final class NetworkStream: ByteStream {
    let endpoint: String
    private let connection: NWConnection
    private let queue = DispatchQueue(label: "com.joeblau.Stream.rtmp")
    private let machine: Mutex<ByteStreamMachine<Waiter>>

    /// A caller waiting: `open`'s, `read`'s or `waitForDrain`'s continuation.
    private enum Waiter {
        case open(CheckedContinuation<Void, any Error>)
        case read(CheckedContinuation<[UInt8]?, any Error>)
        case drain(CheckedContinuation<Void, any Error>)
    }

    /// The largest read.
    static let readSize = 64 * 1024

    init(url: IngestURL) {
        endpoint = "\(url.hostForURL):\(url.port)"
        machine = Mutex(ByteStreamMachine(endpoint: endpoint))
        let port = NWEndpoint.Port(rawValue: UInt16(clamping: url.port)) ?? (url.usesTLS ? 443 : 1935)
        connection = NWConnection(host: NWEndpoint.Host(url.host), port: port, using: url.usesTLS ? .tls : .tcp)
    }

    /// Starts the connection and returns once it is ready (or failed, or `timeout` passed).
    func open(timeout: Duration) async throws(LinkError) {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                resume(machine.withLock { $0.opening(.open(continuation)) })
                connection.stateUpdateHandler = { [weak self] state in self?.changed(state) }
                connection.start(queue: queue)
                queue.asyncAfter(deadline: .now() + timeout.fractionalSeconds) { [weak self] in
                    guard let self, machine.withLock({ $0.isOpening }) else { return }
                    fail(LinkError(.timedOut, "connecting to \(endpoint) timed out"))
                }
            }
        }
    }

    var queuedBytes: Int { machine.withLock { $0.queuedBytes } }

    func write(_ bytes: [UInt8]) throws(LinkError) {
        if let refusal = machine.withLock({ $0.write(count: bytes.count) }) { throw refusal }
        connection.send(content: Data(bytes), completion: .contentProcessed { [weak self] error in
            guard let self else { return }
            if let error { fail(LinkError(error, endpoint: endpoint)) }
            resume(machine.withLock { $0.processed(count: bytes.count) })
        })
    }

    func read() async throws(LinkError) -> [UInt8]? {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let now = machine.withLock { $0.reading(.read(continuation)) }
                if !now.isEmpty {
                    resume(now)
                    return
                }
                connection.receive(minimumIncompleteLength: 1, maximumLength: Self.readSize) { [weak self] data, _,
                                                                                               done, error in
                    guard let self else { return }
                    let bytes = data.map { [UInt8]($0) } ?? []
                    let failure = error.map { LinkError($0, endpoint: endpoint) }
                    resume(machine.withLock { $0.received(hasData: !bytes.isEmpty, done: done, error: failure) },
                           bytes: bytes)
                }
            }
        }
    }

    func waitForDrain(below threshold: Int) async throws(LinkError) {
        try await linkErrors {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                resume(machine.withLock { $0.drainWait(below: threshold, .drain(continuation)) })
            }
        }
    }

    /// Network.framework does not report acknowledged bytes: the engine measures what its send completions say.
    func bytesAcknowledged() async -> Int? { nil }

    func close(flushTimeout: Duration) async {
        resume(machine.withLock { $0.close() })
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once()
            let finish: @Sendable () -> Void = { [connection] in
                guard once.claim() else { return }
                connection.cancel()
                continuation.resume()
            }
            connection.send(content: nil, contentContext: .finalMessage, isComplete: true,
                            completion: .contentProcessed { _ in finish() })
            queue.asyncAfter(deadline: .now() + flushTimeout.fractionalSeconds) { finish() }
        }
    }

    // MARK: - Callbacks (on `queue`)

    private func changed(_ newState: NWConnection.State) {
        switch newState {
        case .ready:
            resume(machine.withLock { $0.ready() })
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

    /// The first failure ends the stream: whoever waits hears of it.
    private func fail(_ error: LinkError) {
        resume(machine.withLock { $0.fail(error) })
    }

    /// Resumes what the machine returned, outside its lock; an open that failed also cancels the connection.
    /// - Parameter bytes: a read's bytes, for a `.data` outcome.
    private func resume(_ resumptions: [ByteStreamMachine<Waiter>.Resumption], bytes: [UInt8] = []) {
        for (waiter, outcome) in resumptions {
            switch (waiter, outcome) {
            case (.open(let continuation), .ready), (.drain(let continuation), .ready):
                continuation.resume()
            case (.open(let continuation), .failure(let failure)):
                continuation.resume(throwing: failure)
                connection.cancel()
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

extension LinkError {
    /// The link error for a Network.framework error: its domain and code, mapped by Publisher's tested table.
    init(_ error: NWError, endpoint: String, pathUnsatisfied: Bool = false) {
        let domain: LinkError.NetworkDomain
        let code: Int32
        switch error {
        case .posix(let posix): (domain, code) = (.posix, posix.rawValue)
        case .dns(let dns): (domain, code) = (.dns, dns)
        case .tls(let status): (domain, code) = (.tls, status)
        @unknown default: (domain, code) = (.unknown, 0)
        }
        self.init(domain: domain, code: code, detail: "\(error)", endpoint: endpoint, pathUnsatisfied: pathUnsatisfied)
    }
}

private extension Duration {
    /// The duration in seconds with its fraction (issue 35 defect 8: `components.seconds` alone made a 0.5 s flush
    /// timeout 0).
    var fractionalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
