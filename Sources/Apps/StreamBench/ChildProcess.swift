#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A program run as a direct child with posix_spawn, so that `wait4` reports exactly its CPU time and peak RSS.
final class ChildProcess {
    /// What the kernel accounted for the child (and the descendants it waited for) when it exited.
    struct Usage {
        var userSeconds: Double
        var systemSeconds: Double
        /// Peak resident set in bytes: VmHWM sampled from /proc while the child ran (see `waitSamplingPeakRSS`),
        /// else wait4's ru_maxrss, which on Linux also counts the parent's resident set at the vfork that
        /// posix_spawn does, so it is only an upper bound.
        var maxRSS: Int
        /// The largest anonymous resident set (RssAnon: heap, stacks) sampled, in bytes; 0 when not sampled.
        /// The rest of VmHWM is file-backed pages (shared libraries), which other processes share.
        var peakAnonymousRSS = 0
        var wallSeconds: Double
        var exitStatus: Int32
        var cpuSeconds: Double { userSeconds + systemSeconds }
    }

    let pid: pid_t
    let name: String
    let logFile: String
    private let started: Double
    private var usage: Usage?

    /// Starts `program` (a path, or a name looked up in PATH) with stdin from `standardInput` and stdout +
    /// stderr into `logFile`.
    init(_ program: String, _ arguments: [String], logFile: String = "/dev/null",
         environment: [String: String] = [:], standardInput: String = "/dev/null") throws {
        let path = try Self.resolve(program)
        name = (program as NSString).lastPathComponent
        self.logFile = logFile
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        started = Measure.now()
        let result = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard result == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(result)))") }
        pid = child
    }

    /// Finds `program` in PATH (and /usr/sbin, where Debian puts nginx).
    static func resolve(_ program: String) throws -> String {
        if program.contains("/") { return program }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for directory in path.split(separator: ":") where access("\(directory)/\(program)", X_OK) == 0 {
            return "\(directory)/\(program)"
        }
        throw BenchError("\(program) is not installed; run scripts/install-deps.sh")
    }

    /// Sends `signal` (if the child has not been reaped yet).
    func signal(_ signal: Int32) {
        if usage == nil { kill(pid, signal) }
    }

    /// Waits for the child to exit and returns its accounting.
    @discardableResult
    func wait() -> Usage {
        if let usage { return usage }
        var status: Int32 = 0
        var resources = rusage()
        while wait4(pid, &status, 0, &resources) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let result = Usage(userSeconds: Measure.seconds(resources.ru_utime),
                           systemSeconds: Measure.seconds(resources.ru_stime),
                           maxRSS: resources.ru_maxrss * 1024, wallSeconds: Measure.now() - started,
                           exitStatus: exit)
        usage = result
        return result
    }

    /// Waits for the child to exit while sampling its VmHWM every 50 ms; the usage's `maxRSS` is the last sample
    /// (the child's own high-water mark, unaffected by our resident set).
    @discardableResult
    func waitSamplingPeakRSS() -> Usage {
        var peak = 0
        var anonymous = 0
        while !hasExited {
            if let sample = ProcessTree.peakRSS(pid: pid) { peak = max(peak, sample) }
            if let sample = ProcessTree.statusField("RssAnon:", pid: pid) { anonymous = max(anonymous, sample) }
            usleep(50_000)
        }
        var result = wait()
        if peak > 0 { result.maxRSS = peak }
        result.peakAnonymousRSS = anonymous
        usage = result
        return result
    }

    /// Whether the child has exited (reaping it if so).
    var hasExited: Bool {
        if usage != nil { return true }
        var status: Int32 = 0
        var resources = rusage()
        let result = wait4(pid, &status, WNOHANG, &resources)
        guard result == pid else { return false }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        usage = Usage(userSeconds: Measure.seconds(resources.ru_utime),
                      systemSeconds: Measure.seconds(resources.ru_stime),
                      maxRSS: resources.ru_maxrss * 1024, wallSeconds: Measure.now() - started, exitStatus: exit)
        return true
    }

    /// Stops the child with `signal`, then SIGKILL after `grace` seconds, and returns its accounting.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, grace: Double = 5) -> Usage {
        self.signal(signal)
        let deadline = Measure.now() + grace
        while !hasExited && Measure.now() < deadline { usleep(20_000) }
        if !hasExited { kill(pid, SIGKILL) }
        return wait()
    }

    /// The last `count` characters of the child's log, for error messages.
    func logTail(_ count: Int = 600) -> String {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return String(text.suffix(count))
    }

    /// Runs a program to completion and throws with its log when it fails.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], logFile: String) throws -> Usage {
        let child = try ChildProcess(program, arguments, logFile: logFile)
        let usage = child.waitSamplingPeakRSS()
        guard usage.exitStatus == 0 else {
            throw BenchError("\(child.name) exited with \(usage.exitStatus): \(child.logTail())")
        }
        return usage
    }

    /// Waits until something accepts TCP connections on 127.0.0.1:`port`.
    static func waitUntilListening(_ port: Int, timeout: Double = 10) throws {
        let deadline = Measure.now() + timeout
        while Measure.now() < deadline {
            if Loopback.canConnect(port: port) { return }
            usleep(20_000)
        }
        throw BenchError("nothing listens on 127.0.0.1:\(port) after \(timeout) s")
    }
}
