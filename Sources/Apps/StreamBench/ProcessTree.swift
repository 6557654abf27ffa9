#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// CPU and memory of a running process and its descendants, read from /proc (for servers we stop ourselves).
enum ProcessTree {
    /// Clock ticks per second of /proc/PID/stat's utime and stime.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// `pid` and every live descendant.
    static func members(root: pid_t) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var parents: [pid_t: pid_t] = [:]
        for name in names {
            guard let pid = pid_t(name), let fields = statFields(pid), fields.count > 1,
                  let parent = pid_t(fields[1]) else { continue }
            parents[pid] = parent
        }
        var result: [pid_t] = [root]
        var index = 0
        while index < result.count {
            let current = result[index]
            result.append(contentsOf: parents.filter { $0.value == current }.map(\.key))
            index += 1
        }
        return result
    }

    /// User + system CPU seconds of `root` and its live descendants.
    static func cpuSeconds(root: pid_t) -> Double {
        members(root: root).reduce(0) { total, pid in total + (cpuSeconds(pid: pid) ?? 0) }
    }

    /// CPU seconds of `root` and its live descendants to the nanosecond: the sum of the run times the scheduler
    /// keeps per thread (/proc/PID/task/TID/schedstat), where /proc/PID/stat's utime + stime count 10 ms ticks. At
    /// an ingest's 1 % of a core a 15 s window is ~15 ticks, and one tick either way moved a ratio by 10-20 %.
    /// Threads that ended are not counted (servers keep theirs); nil when a member's threads cannot be read.
    static func preciseCPUSeconds(root: pid_t) -> Double? {
        var total = 0.0
        for pid in members(root: root) {
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
                return nil
            }
            for task in tasks {
                guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                      let field = text.split(separator: " ").first, let nanoseconds = Double(field) else { continue }
                total += nanoseconds / 1e9
            }
        }
        return total
    }

    /// A server's CPU seconds as the benchmarks read them: ``preciseCPUSeconds(root:)``, or the ticks of
    /// ``cpuSeconds(root:)`` when the scheduler's run times cannot be read.
    static func serverCPUSeconds(root: pid_t) -> Double {
        preciseCPUSeconds(root: root) ?? cpuSeconds(root: root)
    }

    /// Sum of the peak resident sets (VmHWM) of `root` and its live descendants, in bytes.
    static func peakRSS(root: pid_t) -> Int {
        members(root: root).reduce(0) { total, pid in total + (peakRSS(pid: pid) ?? 0) }
    }

    static func cpuSeconds(pid: pid_t) -> Double? {
        // Fields after "(comm)": state is [0], ppid [1], utime [11], stime [12].
        guard let fields = statFields(pid), fields.count > 12, let user = Double(fields[11]),
              let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    static func peakRSS(pid: pid_t) -> Int? {
        statusField("VmHWM:", pid: pid)
    }

    /// A "kB" field of /proc/PID/status (e.g. "VmHWM:", "RssAnon:"), in bytes.
    static func statusField(_ name: String, pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }

    /// The fields of /proc/PID/stat after the command name (which may contain spaces).
    private static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }
}
