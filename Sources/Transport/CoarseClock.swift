import Glibc

/// The kernel's coarse monotonic clock, for bookkeeping that needs no better than a few milliseconds.
///
/// `CLOCK_MONOTONIC_COARSE` is the time of the last scheduler tick (4 ms resolution here): the vDSO reads it from
/// memory, without the cycle counter, and the value needs no `Duration` arithmetic. A connection notes its last
/// activity on every read and flush (several times per relayed message); against its idle timeout of seconds a tick
/// does not matter. Two readings can differ from the real time between them by up to one ``resolution``: see
/// ``elapsedAtLeast(since:)``.
enum CoarseClock {
    /// Nanoseconds since an arbitrary start (boot), rounded down to the last tick.
    static var nanoseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// The clock's tick, in nanoseconds (the kernel's `clock_getres`; 4 ms at 250 Hz).
    static let resolution: Int64 = {
        var time = timespec()
        guard clock_getres(CLOCK_MONOTONIC_COARSE, &time) == 0 else { return 10_000_000 }
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }()

    /// About the least real time that can have passed since the reading `earlier`: a reading lags the real time by
    /// up to a tick, so the difference of two readings can exceed the real interval by a tick, which this takes
    /// off. Under load the kernel may update the clock late (a lag of more than a tick), so an idle timeout measured
    /// with this can still fire a few milliseconds early, never a whole tick.
    static func elapsedAtLeast(since earlier: Int64) -> Duration {
        .nanoseconds(max(0, nanoseconds - earlier - resolution))
    }
}
