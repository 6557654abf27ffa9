import Media
import Locking

/// A bounded FIFO between a push-style audio capture (PulseAudio's thread) and a pull-style consumer (the
/// broadcast's media loop). When full, the oldest buffer is dropped and counted, so latency stays bounded.
public final class AudioBufferQueue: Sendable {
    /// The most buffers held.
    public let capacity: Int
    private let state: Locked<(buffers: [PCMBuffer], dropped: Int)>

    /// Creates a queue holding at most `capacity` buffers (at least 1).
    public init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
        state = Locked(([], 0))
    }

    /// Adds a buffer, dropping the oldest when full. Safe from any thread (pass it as the capture's handler).
    public func push(_ buffer: PCMBuffer) {
        state.withLock { state in
            if state.buffers.count == capacity {
                state.buffers.removeFirst()
                state.dropped += 1
            }
            state.buffers.append(buffer)
        }
    }

    /// The oldest buffer, or nil when empty (the consumer then plays silence or waits).
    public func pop() -> PCMBuffer? {
        state.withLock { $0.buffers.isEmpty ? nil : $0.buffers.removeFirst() }
    }

    /// Buffers waiting.
    public var count: Int { state.withLock { $0.buffers.count } }

    /// Buffers dropped because the queue was full.
    public var dropped: Int { state.withLock { $0.dropped } }
}
