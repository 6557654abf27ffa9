#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock that frame and buffer timestamps use.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (boot), never going backwards.
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
