import Locking

/// A value that callbacks change from any thread and that a test waits on: the wait ends on the change that makes
/// its condition true (no polling, no sleep), or fails at its bound saying what it waited for and what it last saw.
///
/// ```swift
/// let received = Watched(0)
/// socket.onRead = { bytes in received.update { $0 += bytes.count } }
/// try await received.wait("all 3000 bytes") { $0 >= 3000 }
/// ```
public final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Value, any Error>
    }

    private struct State {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    /// Starts with `value`.
    public init(_ value: Value) {
        state = Locked(State(value: value))
    }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes the waits whose condition now holds.
    /// - Returns: what `body` returns.
    @discardableResult
    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        let (result, woken, value) = state.withLock { state in
            let result = body(&state.value)
            var woken: [CheckedContinuation<Value, any Error>] = []
            for (id, waiter) in state.waiters where waiter.condition(state.value) {
                woken.append(waiter.continuation)
                state.waiters[id] = nil
            }
            return (result, woken, state.value)
        }
        for continuation in woken { continuation.resume(returning: value) }
        return result
    }

    /// Returns the value as soon as `condition` holds for it (at once if it already does).
    /// - Parameters:
    ///   - what: what the test waits for, for the failure.
    ///   - timeout: the bound.
    ///   - condition: checked now and after each change, under the value's lock.
    /// - Returns: the value that met the condition.
    /// - Throws: ``WaitTimeout`` with `what` and the last value when `timeout` passes first; `CancellationError`.
    @discardableResult
    public func wait(_ what: String, within timeout: Duration = .seconds(10),
                     until condition: @escaping @Sendable (Value) -> Bool) async throws -> Value {
        if let value = state.withLock({ condition($0.value) ? $0.value : nil }) { return value }
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await self.park(until: condition) }
            // The bound, not a synchronisation: the wait above ends on the change itself.
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else {
                // A long value (a list of 500 sessions) is cut: the failure is read by a person.
                let seen = String(describing: self.value)
                let shown = seen.count > 400 ? "\(seen.prefix(400))… (\(seen.count) characters)" : seen
                throw WaitTimeout(description: "timed out after \(timeout) waiting for \(what); the value was \(shown)")
            }
            return first
        }
    }

    /// Suspends until `condition` holds; a cancelled wait throws `CancellationError`.
    private func park(until condition: @escaping @Sendable (Value) -> Bool) async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if condition(state.value) { return .success(state.value) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
