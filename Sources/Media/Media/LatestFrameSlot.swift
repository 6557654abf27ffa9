import Locking

/// A one-frame mailbox between the camera and the compositor: a newer frame replaces an older one that was not
/// taken yet, and the older one is dropped (its buffer goes back to the camera's pool at once).
///
/// This keeps at most one camera frame waiting, whatever the camera's and the screen's rates. Thread-safe: the
/// camera thread calls ``put(_:)``, the video pipeline calls ``take()``.
public final class LatestFrameSlot: Sendable {
    /// Counters of the slot.
    public struct Statistics: Sendable, Hashable {
        /// Frames put in.
        public var delivered = 0
        /// Frames taken out.
        public var taken = 0
        /// Frames replaced by a newer one before being taken.
        public var dropped = 0

        /// Creates counters.
        public init(delivered: Int = 0, taken: Int = 0, dropped: Int = 0) {
            self.delivered = delivered
            self.taken = taken
            self.dropped = dropped
        }
    }

    private struct State {
        var frame: VideoFrame?
        var statistics = Statistics()
    }

    private let state = Locked(State())

    /// Creates an empty slot.
    public init() {}

    /// Stores `frame`, replacing (and dropping) any frame not yet taken.
    public func put(_ frame: consuming VideoFrame) {
        let incoming = frame
        let replaced: VideoFrame? = state.withLock { state in
            state.statistics.delivered += 1
            let old = state.frame.take()
            if old != nil { state.statistics.dropped += 1 }
            state.frame = incoming
            return old
        }
        _ = consume replaced  // released outside the lock: its buffer returns to its pool
    }

    /// Removes and returns the waiting frame, if any.
    public func take() -> VideoFrame? {
        state.withLock { state in
            let frame = state.frame.take()
            if frame != nil { state.statistics.taken += 1 }
            return frame
        }
    }

    /// Counters of the slot.
    public var statistics: Statistics {
        state.withLock { $0.statistics }
    }
}
