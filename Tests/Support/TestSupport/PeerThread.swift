import Foundation
import Locking

/// Runs a fake peer's blocking script on its own thread, so it never holds a thread of Swift's cooperative pool
/// (which the code under test needs) while it waits on a socket.
public final class PeerThread: Sendable {
    private let outcome = Locked<Result<Void, any Error>?>(nil)

    /// Starts `script` at once on a new thread.
    public init(_ name: String, _ script: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            let result = Result<Void, any Error> { try script() }
            outcome.withLock { $0 = result }
        }
        thread.name = name
        thread.start()
    }

    /// Whether the script has returned or thrown.
    public var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Waits (without blocking a thread) until the script ends, then rethrows what it threw.
    /// - Throws: the script's error, or a failure when it is still running after `timeout`.
    public func finish(within timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let result = outcome.withLock({ $0 }) {
                try result.get()
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RawSocket.Failure(description: "the fake peer's script still runs after \(timeout)", isTimeout: true)
    }
}
