#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `CLOCK_MONOTONIC` in nanoseconds since an arbitrary start (boot), never going backwards, read through the vDSO:
/// the clock `epoll_wait`'s timeouts count in, that frame and buffer timestamps use, and the same in every process of
/// the machine (a benchmark's processes compare their readings).
public enum MonotonicClock {
    public static var nanoseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
