import Locking
import Transport

/// Writes a streamed response body (``HTTPResponse/Body/stream(_:)``) as it is produced.
///
/// Each write is sent as one chunk. A write returns once its bytes are queued; while more than
/// ``highWatermark`` bytes wait for a slow client, the next write waits for the queue to drain, so a producer
/// never buffers more than that per connection.
public final class HTTPBodyWriter: Sendable {
    /// Queued bytes above which writes wait.
    public static let highWatermark = 256 * 1024

    private let connection: LoopBound<HTTPServerConnection>
    private let exchange: UInt64
    private let drain = Locked<DrainState>(.idle)

    private enum DrainState {
        case idle
        case expecting
        case drained
        case waiting(CheckedContinuation<Void, any Error>)
        case failed
    }

    init(connection: LoopBound<HTTPServerConnection>, exchange: UInt64) {
        self.connection = connection
        self.exchange = exchange
    }

    /// Sends `bytes` as the next piece of the body.
    /// - Throws: ``HTTPServerError`` when the client has gone.
    public func write(_ bytes: [UInt8]) async throws(HTTPServerError) {
        guard !bytes.isEmpty else { return }
        let connection = self.connection
        let exchange = self.exchange
        drain.withLock { if case .idle = $0 { $0 = .expecting } }
        let mustWait: Bool
        do {
            mustWait = try await connection.loop.submit { try connection.value.streamWrite(bytes, exchange: exchange) }
        } catch {
            throw .connectionClosed
        }
        if mustWait {
            try await waitForDrain()
        } else {
            drain.withLock { if case .expecting = $0 { $0 = .idle } }
        }
    }

    /// Sends text as UTF-8.
    public func write(_ text: String) async throws(HTTPServerError) {
        try await write(Array(text.utf8))
    }

    private func waitForDrain() async throws(HTTPServerError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = drain.withLock { state -> Bool? in
                    switch state {
                    case .drained:
                        state = .idle
                        return true
                    case .failed:
                        return false
                    case .idle, .expecting, .waiting:
                        state = .waiting(continuation)
                        return nil
                    }
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: HTTPServerError.connectionClosed)
                case nil: break
                }
            }
        } catch {
            throw .connectionClosed
        }
    }

    /// The connection's queue fell below the low watermark (loop thread).
    func drained() {
        let waiter = drain.withLock { state -> CheckedContinuation<Void, any Error>? in
            switch state {
            case .waiting(let continuation):
                state = .idle
                return continuation
            case .expecting:
                state = .drained
                return nil
            case .idle, .drained, .failed:
                return nil
            }
        }
        waiter?.resume()
    }

    /// The connection closed (loop thread): waiting and later writes fail.
    func failed() {
        let waiter = drain.withLock { state -> CheckedContinuation<Void, any Error>? in
            defer { state = .failed }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume(throwing: HTTPServerError.connectionClosed)
    }
}
