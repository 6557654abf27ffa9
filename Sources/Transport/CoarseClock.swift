import Glibc

/// The kernel's coarse monotonic clock, for bookkeeping that needs no better than a few milliseconds.
///
/// `CLOCK_MONOTONIC_COARSE` is the time of the last scheduler tick (4 ms resolution here): the vDSO reads it from
/// memory, without the cycle counter, and the value needs no `Duration` arithmetic. A connection notes its last
/// activity on every read and flush (several times per relayed message); against its idle timeout of seconds the
/// tick's lag does not matter, and the idle check, which reads the same clock, can only fire up to a tick late.
enum CoarseClock {
    /// Nanoseconds since an arbitrary start (boot), rounded down to the last tick.
    static var nanoseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
