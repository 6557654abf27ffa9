import Locking

/// An event that happens once (a stop asked, every output live, a thread done), which any number of tasks can
/// await.
///
/// Waiting costs nothing until the event fires; a waiting task that is cancelled returns at once.
public final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [UInt64: CheckedContinuation<Value?, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// An event that has not happened yet.
    public init() {}

    /// The value it fired with, or nil before.
    public var value: Value? { state.withLock { $0.value } }

    /// Fires with `value` (only the first call counts) and wakes every waiter.
    /// - Returns: whether this call fired it.
    @discardableResult
    public func fire(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// Returns the value once it fired, or nil if the waiting task is cancelled first.
    public func wait() async -> Value? {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let ready = state.withLock { state -> Value?? in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}

extension OneShot where Value == Void {
    /// Fires.
    @discardableResult
    public func fire() -> Bool { fire(()) }
}

extension OneShot {
    /// Waits until the event fires, for at most `delay` (a timer that a stop ends early).
    /// - Returns: true when the event fired.
    public func wait(atMost delay: Duration) async -> Bool {
        if value != nil { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await Task.sleep(for: delay)) == nil && self.value != nil }
            group.addTask { await self.wait() != nil }
            let fired = await group.next() ?? false
            group.cancelAll()
            return fired || value != nil
        }
    }
}
