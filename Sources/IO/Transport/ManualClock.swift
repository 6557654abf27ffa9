import Locking
import Synchronization

/// A time for an ``EventLoop``'s timers that moves only when a test moves it, so that a timer firing is an event the
/// test causes rather than a delay it sleeps through (swift-nio's `EmbeddedEventLoop` does the same with a thread of
/// its own). Only the loop's timers count in it: a connection's idle and handshake deadlines keep the monotonic clock.
///
/// A test gives it to `EventLoop(name:clock:)` and moves it on the loop thread (see the tests' `ManualClockLoop`),
/// so that no turn sees half a step.
final class ManualClock: Sendable {
    private let time: Atomic<Int64>

    /// A clock that reads `nanoseconds` until moved.
    init(nanoseconds: Int64 = 0) {
        time = Atomic(nanoseconds)
    }

    /// The time now, in nanoseconds (the unit of ``MonotonicClock``).
    var nanoseconds: Int64 {
        time.load(ordering: .acquiring)
    }

    /// Moves the time forward by `delay` (saturating; a negative delay leaves it).
    func advance(by delay: Duration) {
        time.store(MonotonicClock.deadline(after: delay, from: nanoseconds), ordering: .releasing)
    }
}
