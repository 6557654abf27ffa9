#if canImport(Glibc)
import Glibc
#endif
import Locking

/// Clocks and small statistics used by every benchmark.
enum Measure {
    /// Monotonic wall-clock seconds.
    static func now() -> Double {
        Double(MonotonicClock.nanoseconds) / 1e9
    }

    /// CPU seconds (user + system) used so far by every thread of this process.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// CPU seconds used so far by the calling thread (precise, for single-threaded loops).
    static func threadCPU() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// This process's peak resident set size in bytes (VmHWM).
    static func peakRSS() -> Int {
        ProcessTree.peakRSS(pid: getpid()) ?? 0
    }

    static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1e6
    }

    /// The median of `values` (nil when empty).
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `fraction` quantile of `values` by nearest rank (nil when empty).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
