#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking

/// How `stream serve reload` finds a running `stream serve` and hears what its reload did: two small files in the
/// server's data directory (`--data-dir`, else `$XDG_DATA_HOME/stream`), neither holding a secret.
///
/// - `serve.pid`: the server's process id, written once it serves and removed when it stops.
/// - `serve-reload.txt`: the outcome of its last reload, replaced whole (written aside, then renamed): a first line
///   `PID SEQUENCE ok|refused`, then the reload's log lines.
struct ServeControl: Sendable {
    /// The data directory.
    let directory: String

    var pidFile: String { directory + "/serve.pid" }
    var statusFile: String { directory + "/serve-reload.txt" }

    /// A reload's outcome as the status file holds it.
    struct Status: Equatable {
        var pid: Int32
        var sequence: Int
        var refused: Bool
        var lines: [String]
    }

    // MARK: - The server's side

    /// Writes the pid file (mode 0644), creating the directory (0700) when needed.
    /// - Returns: false when it cannot be written (said by the caller; the server runs on without it).
    func claim(pid: Int32 = getpid()) -> Bool {
        mkdir(directory, 0o700)
        return replace(pidFile, with: String(pid) + "\n")
    }

    /// Removes the pid file if it still names this process (another server may have taken the directory since).
    func release(pid: Int32 = getpid()) {
        if readPid() == pid { unlink(pidFile) }
    }

    /// Records a reload's outcome.
    func record(sequence: Int, _ outcome: ServeReload.Outcome, pid: Int32 = getpid()) {
        let head = "\(pid) \(sequence) \(outcome.refused ? "refused" : "ok")\n"
        _ = replace(statusFile, with: head + outcome.lines.map { $0 + "\n" }.joined())
    }

    /// Writes `text` to `path` whole: a file beside it, then a rename, so a reader never sees half of it.
    private func replace(_ path: String, with text: String) -> Bool {
        let aside = path + ".new"
        let descriptor = open(aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(aside, path) == 0 else {
            unlink(aside)
            return false
        }
        return true
    }

    // MARK: - The client's side

    /// The pid the pid file names, or nil.
    func readPid() -> Int32? {
        guard let text = read(pidFile) else { return nil }
        return Int32(text.trimmed)
    }

    /// The last reload's outcome, or nil when there is none (or it cannot be read).
    func readStatus() -> Status? {
        guard let text = read(statusFile) else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard let head = lines.first?.split(separator: " "), head.count == 3, let pid = Int32(head[0]),
              let sequence = Int(head[1]), head[2] == "ok" || head[2] == "refused" else { return nil }
        return Status(pid: pid, sequence: sequence, refused: head[2] == "refused", lines: Array(lines.dropFirst()))
    }

    private func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether `pid` is a running `stream serve` (on Linux its command line says so; elsewhere, that it runs).
    static func isServe(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return words.contains("serve")
        #else
        return true
        #endif
    }

    /// Asks the server of this directory to reload (SIGHUP) and waits for its outcome.
    /// - Returns: the outcome.
    /// - Throws: `CLIError.failure` when no server runs with this directory, or it did not answer within
    ///   `timeout` seconds.
    func reload(timeout: Double = 10) throws -> Status {
        guard let pid = readPid(), Self.isServe(pid) else {
            throw CLIError.failure("no stream serve is running with the data directory \(directory) (no live "
                                   + "process in \(pidFile)); give the server's --data-dir")
        }
        let before = readStatus().flatMap { $0.pid == pid ? $0.sequence : nil } ?? 0
        guard kill(pid, SIGHUP) == 0 else {
            throw CLIError.failure("cannot signal stream serve (pid \(pid)): \(String(cString: strerror(errno)))")
        }
        let deadline = MonotonicDeadline(seconds: timeout)
        while !deadline.passed {
            if let status = readStatus(), status.pid == pid, status.sequence > before { return status }
            usleep(20_000)
        }
        throw CLIError.failure("stream serve (pid \(pid)) did not say within \(Int(timeout)) s what it reloaded; "
                               + "its log may")
    }
}

/// A point a number of seconds from now on the monotonic clock.
private struct MonotonicDeadline {
    private let end: Int64

    init(seconds: Double) {
        end = MonotonicClock.nanoseconds + Int64(seconds * 1_000_000_000)
    }

    var passed: Bool { MonotonicClock.nanoseconds >= end }
}
