import Foundation
import LiveProtocol
import Locking
import ShowServer

/// A connection that keeps what the show server sends it, for tests of the driver without a transport.
final class RecordingConnection: ShowConnection {
    private struct State {
        var messages: [ServerMessage] = []
        var closed: (code: UInt16, reason: String)?
    }

    private let state = Locked(State())
    private let arrived = DispatchSemaphore(value: 0)

    func send(_ text: [UInt8]) {
        guard let message = try? LiveCodec.decodeServerMessage(text) else { return }
        state.withLock { $0.messages.append(message) }
        arrived.signal()
    }

    func close(code: UInt16, reason: String) {
        state.withLock { $0.closed = (code, reason) }
        arrived.signal()
    }

    var messages: [ServerMessage] { state.withLock { $0.messages } }
    var closeCode: UInt16? { state.withLock { $0.closed?.code } }
    var closeReason: String? { state.withLock { $0.closed?.reason } }

    /// Waits until `condition` holds for what arrived (or the timeout passes); returns whether it held.
    @discardableResult
    func wait(timeout: TimeInterval = 5, until condition: (RecordingConnection) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(self) {
            guard arrived.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .success else {
                return condition(self)
            }
        }
        return true
    }

    /// The reply to a request id, waiting for it.
    func reply(_ id: Int64) -> Result<Reply, ShowError>? {
        wait { connection in connection.messages.contains { if case .reply(id, _) = $0 { true } else { false } } }
        for message in messages {
            if case .reply(id, let result) = message { return result }
        }
        return nil
    }

    /// The events received, in order.
    var events: [Event] {
        messages.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }
}
