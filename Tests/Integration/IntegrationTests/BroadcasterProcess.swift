import Foundation
import Locking
import Synchronization
import TestSupport
import Testing

/// The real `stream broadcast` as a child process, as a user runs it: credentials saved first (the key from
/// stdin), standard output collected line by line with arrival times, resident memory sampled every 100 ms.
final class BroadcasterProcess {
    let home: TemporaryConfigHome
    let process: BackgroundProcess
    let lines: Lines
    let memory: MemorySampler
    private let errorLog: String

    /// Saves `url` and `key` with `stream credentials set`, then starts `stream broadcast --source test` with
    /// `arguments`.
    init(url: String, key: String, arguments: [String]) throws {
        home = try TemporaryConfigHome()
        let stream = try StreamExecutable.url().path
        let environment = home.environment.merging(["TERM": "dumb"]) { $1 }
        let saved = try Subprocess.run(stream, ["credentials", "set", url], environment: environment,
                                       stdin: Data("\(key)\n".utf8))
        guard saved.status == 0 else {
            throw Subprocess.Failure(description: "stream credentials set failed: \(saved.stderr)")
        }
        errorLog = home.url.appendingPathComponent("broadcast.err").path
        process = try BackgroundProcess(stream, ["broadcast", "--source", "test"] + arguments,
                                        environment: environment, errorLog: errorLog)
        lines = Lines(of: process)
        memory = MemorySampler(pid: process.pid)
    }

    /// Starts `stream broadcast --source test` with `arguments` (URLs among them) and nothing saved, reading
    /// `stdin` (the stream keys, one line per URL, with `--key-stdin`).
    init(arguments: [String], stdin: String) throws {
        home = try TemporaryConfigHome()
        let environment = home.environment.merging(["TERM": "dumb"]) { $1 }
        errorLog = home.url.appendingPathComponent("broadcast.err").path
        process = try BackgroundProcess(try StreamExecutable.url().path,
                                        ["broadcast", "--source", "test"] + arguments, environment: environment,
                                        errorLog: errorLog, stdin: stdin)
        lines = Lines(of: process)
        memory = MemorySampler(pid: process.pid)
    }

    /// How much the broadcaster's resident memory may grow through a fault before the test calls it unbounded:
    /// 24 MB, or 64 MB when it runs under AddressSanitizer (`scripts/sanitize.sh address` sets `ASAN_OPTIONS`),
    /// whose allocator keeps freed blocks in its quarantine and size-class caches, so that resident memory
    /// climbs with the allocation churn of a long run (measured over the restart test's 30 s: +34 to +36 MB under
    /// ASan, +0.3 MB without). Unbounded growth (a queue that never drops) goes far past either.
    static var memoryGrowthAllowance: Int {
        Sanitizer.isAddress ? 64 << 20 : 24 << 20
    }

    /// What it printed on standard error.
    var errors: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }

    /// Waits for it to end by itself; nil when it had to be killed after `timeout`.
    /// Once it exited, every line it printed has been read too (the reader thread may lag the exit: a test read
    /// the output without the last summary line on a loaded machine).
    func waitForExit(timeout: TimeInterval) -> Int32? {
        defer { memory.stop() }
        let status = process.waitForExit(timeout: timeout)
        if status != nil { _ = lines.waitForEnd(timeout: 10) }
        return status
    }

    func stop() {
        memory.stop()
        process.stop()
    }
}

/// What the broadcaster printed, line by line, with when each line arrived.
final class Lines: Sendable {
    private let lines = Locked<[(at: ContinuousClock.Instant, text: String)]>([])
    private let ended = DispatchSemaphore(value: 0)

    /// Reads the process's standard output on a thread until it ends.
    init(of process: BackgroundProcess) {
        let thread = Thread { [self] in
            while let line = try? process.readLine(timeout: 300) {
                lines.withLock { $0.append((ContinuousClock.now, line)) }
            }
            ended.signal()
        }
        thread.start()
    }

    /// Waits until the output ended and every line was read; false when `timeout` passed first.
    func waitForEnd(timeout: TimeInterval) -> Bool {
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal()
        return true
    }

    var all: [(at: ContinuousClock.Instant, text: String)] { lines.withLock { $0 } }
    var text: String { all.map(\.text).joined(separator: "\n") }

    func count(containing needle: String) -> Int { all.filter { $0.text.contains(needle) }.count }

    /// The numbers the status lines printed so far give for `field` (`| dropped 12 |` → 12), oldest first.
    func statusValues(_ field: String) -> [Int] {
        all.compactMap { line -> Int? in
            guard let range = line.text.range(of: "| \(field) ") else { return nil }
            return Int(line.text[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// The encoder's bitrate the status lines printed (`video 480 kbps (target 500)` → 500) from `start` on, with
    /// when each line arrived.
    func targetBitrates(from start: ContinuousClock.Instant) -> [(at: ContinuousClock.Instant, kbps: Int)] {
        all.compactMap { line -> (ContinuousClock.Instant, Int)? in
            guard line.at >= start, let range = line.text.range(of: "(target ") else { return nil }
            return Int(line.text[range.upperBound...].prefix { $0.isNumber }).map { (line.at, $0) }
        }
    }

    /// Waits until `count` lines contain `needle`; returns when the last of them arrived.
    func wait(for needle: String, count: Int = 1, timeout: Duration) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matches = all.filter { $0.text.contains(needle) }
            if matches.count >= count { return matches[count - 1].at }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Subprocess.Failure(description: "no line '\(needle)' (×\(count)) within \(timeout):\n\(text)")
    }
}

/// The broadcaster's resident memory, sampled every 100 ms.
final class MemorySampler: Sendable {
    private let samples = Locked<[(at: ContinuousClock.Instant, bytes: Int)]>([])
    private let stopped = Atomic<Bool>(false)

    init(pid: Int32) {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                let bytes = ProcessMemory.residentBytes(ofProcess: pid)
                if bytes > 0 { samples.withLock { $0.append((ContinuousClock.now, bytes)) } }
                usleep(100_000)
            }
        }
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// The most resident bytes seen between two instants.
    func peak(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant = .now) -> Int {
        samples.withLock { $0.filter { $0.at >= start && $0.at <= end }.map(\.bytes).max() ?? 0 }
    }
}
