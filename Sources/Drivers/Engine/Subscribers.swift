import Locking

/// Hands each value to every current subscriber's `AsyncStream`: state changes that several parties follow (the
/// engine, a status line printer) without polling.
final class Subscribers<Element: Sendable>: Sendable {
    private struct State {
        var continuations: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var nextID: UInt64 = 0
        var finished = false
    }

    private let state = Locked(State())
    /// How many values a slow subscriber may fall behind before the oldest are dropped.
    private let buffer: Int

    /// - Parameter buffer: values kept per subscriber that has not read them yet.
    init(buffer: Int = 256) {
        self.buffer = buffer
    }

    /// A stream of every value yielded from now on; it ends after ``finish()``.
    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self,
                                                            bufferingPolicy: .bufferingNewest(buffer))
        let added = state.withLock { state -> UInt64? in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        if let id = added {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
            }
        } else {
            continuation.finish()
        }
        return stream
    }

    /// Hands `value` to every subscriber.
    func yield(_ value: Element) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(value) }
    }

    /// Ends every stream; later subscribers get an empty one.
    func finish() {
        let continuations = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            state.finished = true
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
