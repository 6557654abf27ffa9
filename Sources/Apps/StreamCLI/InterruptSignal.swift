import Dispatch
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking

/// Ctrl-C (SIGINT) and SIGTERM, turned into an async event a long-running command can wait for.
///
/// While it exists, the signals no longer kill the process: the command ends cleanly instead (unpublish,
/// flush, close the recording). A second Ctrl-C while stopping still exits at once.
final class InterruptSignal: Sendable {
    private struct State {
        var count = 0
        var nextWaiter = 0
        /// Each waiter resumes with true on a signal, or false when its time limit (if any) passes first.
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Locked(State())
    // Safe: set once in init, then only cancelled in deinit; dispatch sources are thread-safe objects.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init() {
        sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        }
        for source in sources {
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
        }
    }

    /// Whether a signal arrived.
    var hasFired: Bool { state.withLock { $0.count > 0 } }

    /// Returns true once SIGINT or SIGTERM arrives (at once if one already did), or false when the waiting task is
    /// cancelled first (a broadcast that ended by itself stops waiting for Ctrl-C).
    @discardableResult
    func wait() async -> Bool {
        await wait(limit: nil)
    }

    /// Returns true once SIGINT or SIGTERM arrives, or false when `limit` passes (or the waiting task is cancelled)
    /// first. Nothing polls: the signal or a one-shot timer resumes the waiter, whichever comes first.
    func wait(upTo limit: Duration) async -> Bool {
        await wait(limit: limit)
    }

    private func wait(limit: Duration?) async -> Bool {
        let id = state.withLock { value -> Int in
            value.nextWaiter += 1
            return value.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { value -> Bool? in
                    if value.count > 0 { return true }
                    if Task.isCancelled { return false }
                    value.waiters[id] = continuation
                    return nil
                }
                if let now {
                    continuation.resume(returning: now)
                    return
                }
                guard let limit else { return }
                let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) * 1e-18
                let deadline = DispatchTime.now() + seconds
                // Weak: a signal that came first lets the waiter return and this object go before the timer fires.
                DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in
                    guard let self, let expired = state.withLock({ $0.waiters.removeValue(forKey: id) }) else {
                        return
                    }
                    expired.resume(returning: false)
                }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }

    private func fire() {
        let waiters = state.withLock { value -> [CheckedContinuation<Bool, Never>] in
            value.count += 1
            if value.count > 1 { exit(130) }
            defer { value.waiters = [:] }
            return Array(value.waiters.values)
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    deinit {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
