#if canImport(Darwin)
import Foundation
import Locking

/// Opens show sockets with `URLSessionWebSocketTask` on Apple platforms (TLS verified by the system).
public struct URLSessionConnector: ShowSocketConnector {
    /// The session the tasks run in.
    public let session: URLSession

    /// Creates a connector over a session (`.shared` by default).
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Opens a WebSocket with the token in an `Authorization: Bearer` header (never in the URL).
    public func connect(to url: String, token: String?) async throws(LiveStreamError) -> any ShowSocket {
        guard let address = URL(string: url) else { throw .invalid("not a URL: \(url)") }
        var request = URLRequest(url: address)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = 2 << 20
        task.resume()
        do {
            // The first ping's answer proves the upgrade succeeded.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        } catch {
            task.cancel(with: .goingAway, reason: nil)
            throw .disconnected("cannot connect to \(address.host ?? url): \(error.localizedDescription)")
        }
        return URLSessionShowSocket(task: task)
    }
}

/// A `URLSessionWebSocketTask` as a show socket.
struct URLSessionShowSocket: ShowSocket {
    let task: URLSessionWebSocketTask

    func send(_ text: String) async throws {
        try await task.send(.string(text))
    }

    func receive() async -> String? {
        while true {
            do {
                switch try await task.receive() {
                case .string(let text): return text
                case .data: continue
                @unknown default: continue
                }
            } catch {
                return nil
            }
        }
    }

    func ping(timeout: Duration) async -> Bool {
        // Whichever comes first, the pong or the deadline, answers; a dead connection may never call the handler.
        let waiter = Locked<CheckedContinuation<Bool, Never>?>(nil)
        let answer: @Sendable (Bool) -> Void = { answered in
            waiter.withLock { held in
                defer { held = nil }
                return held
            }?.resume(returning: answered)
        }
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            task.sendPing { error in answer(error == nil) }
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { answer(false) }
        }
    }

    func close() async {
        task.cancel(with: .normalClosure, reason: nil)
    }
}
#endif
