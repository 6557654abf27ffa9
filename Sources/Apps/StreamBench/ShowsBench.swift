#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Identity
import Transport

/// Item 13: one live show on `stream serve --shows` (its own process): watchers on WebSockets, writers sending chat
/// at a fixed rate, reactions on top. Measures delivery latency (writer's send to each watcher's receipt, one
/// clock), messages lost, the server's memory per watcher and its CPU.
struct ShowsBench {
    let context: BenchContext
    static let writers = 20
    static let reactors = 40

    struct Outcome {
        var watchers: Int
        var messagesPerSecond: Double
        var deliveriesPerSecond: Double
        var latencies: [Int64]
        var ackLatencies: [Int64]
        var lost: Int
        var expected: Int
        var reactionsPerSecond: Double
        var rssPerWatcherKB: Double
        var serverRSSMB: Double
        var cpuPercent: Double
    }

    func run(into report: Report) throws {
        // Two sizes in full mode, to show where the limit of this machine is.
        for watchers in context.quick ? [200] : [1000, 2000] {
            try run(watchers: watchers, seconds: context.quick ? 8 : 30, into: report)
        }
    }

    private func run(watchers: Int, seconds: Double, into report: Report) throws {
        let outcome = try measure(watchers: watchers, messagesPerSecond: 50, reactionsPerSecond: 100,
                                  seconds: seconds)
        let section = "13 live show \(watchers) watchers, 50 msg/s"
        let sorted = outcome.latencies.sorted()
        let acks = outcome.ackLatencies.sorted()
        report.record(section, "deliveries", unit: "msg/s", ours: outcome.deliveriesPerSecond,
                      note: "\(Self.writers) writers at 50 msg/s in all, \(Self.reactors) reactors at "
                        + "\(Int(outcome.reactionsPerSecond)) reactions/s; stream-bench's clients on one thread")
        report.record(section, "delivery latency p50", unit: "ms", ours: Self.percentile(sorted, 0.5))
        report.record(section, "delivery latency p99", unit: "ms", ours: Self.percentile(sorted, 0.99))
        report.record(section, "send to acknowledgement (committed) p99", unit: "ms", ours: Self.percentile(acks, 0.99))
        report.record(section, "messages lost", unit: "count", ours: Double(outcome.lost),
                      note: "of \(outcome.expected) deliveries expected")
        report.record(section, "server RSS per watcher", unit: "KB", ours: outcome.rssPerWatcherKB)
        report.record(section, "server RSS", unit: "MB", ours: outcome.serverRSSMB)
        report.record(section, "server CPU, share of one core", unit: "%", ours: outcome.cpuPercent)
    }

    static func percentile(_ sorted: [Int64], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1000
    }

    /// Wall-clock microseconds: the writers stamp messages with it and the watchers compare (one process).
    static func microseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    private func measure(watchers: Int, messagesPerSecond: Double, reactionsPerSecond: Double,
                         seconds: Double) throws -> Outcome {
        let secretText = String(repeating: "b", count: 48)
        let secretFile = context.file("shows-secret")
        let showsFile = context.file("shows.json")
        try secretText.write(toFile: secretFile, atomically: true, encoding: .utf8)
        chmod(secretFile, 0o600)
        try #"{"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "reactions": true}]}"#
            .write(toFile: showsFile, atomically: true, encoding: .utf8)
        let httpPort = try Loopback.freePort()
        let rtmpPort = try Loopback.freePort()
        let data = context.file("shows-data-\(watchers)-\(Int(Date().timeIntervalSince1970))")
        let serve = try ChildProcess(context.streamExecutable, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            "--shows", showsFile, "--token-secret-file", secretFile, "--data-dir", data,
        ], logFile: context.file("serve-shows-\(watchers).log"),
           environment: ["XDG_CONFIG_HOME": context.file("xdg-config")])
        defer { serve.stop(SIGINT) }
        do {
            try ChildProcess.waitUntilListening(httpPort)
        } catch {
            throw BenchError("stream serve --shows did not start: \(serve.logTail())")
        }
        let baseline = ProcessTree.statusField("VmRSS:", pid: serve.pid) ?? 0
        let secret = try TokenSecret(Array(secretText.utf8))
        let load = try ShowLoad(port: httpPort, path: "/v1/streams/show:bench", secret: secret)
        defer { load.shutdown() }
        try load.connect(watchers: watchers, writers: Self.writers, reactors: Self.reactors)
        usleep(2_000_000)  // the welcomes and the first counts settle
        let windowStart = Self.microseconds() + 1_000_000
        let windowEnd = windowStart + Int64(seconds * 1e6)
        let cpuStart = ProcessTree.cpuSeconds(root: serve.pid)
        load.start(messagesPerSecond: messagesPerSecond, reactionsPerSecond: reactionsPerSecond,
                   window: windowStart..<windowEnd)
        var peakRSS = 0
        while Self.microseconds() < windowEnd {
            peakRSS = max(peakRSS, ProcessTree.statusField("VmRSS:", pid: serve.pid) ?? 0)
            usleep(500_000)
        }
        let cpu = ProcessTree.cpuSeconds(root: serve.pid) - cpuStart
        usleep(2_000_000)  // the last deliveries arrive
        let seen = try load.results()
        let window = Double(windowEnd - windowStart) / 1e6
        let expected = seen.acknowledged.count * watchers
        return Outcome(watchers: watchers, messagesPerSecond: Double(seen.acknowledged.count) / window,
                       deliveriesPerSecond: Double(seen.delivered) / window, latencies: seen.latencies,
                       ackLatencies: seen.acknowledged, lost: max(0, expected - seen.delivered), expected: expected,
                       reactionsPerSecond: Double(seen.reactions) / window,
                       rssPerWatcherKB: Double(peakRSS - baseline) / 1024
                        / Double(watchers + Self.writers + Self.reactors),
                       serverRSSMB: Double(peakRSS) / 1_048_576,
                       cpuPercent: cpu / (Double(windowEnd - windowStart + 2_000_000) / 1e6) * 100)
    }
}
