#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs the selected items the requested number of times and prints the table.
struct BenchRunner {
    let options: BenchOptions

    func run() throws {
        let selfPath = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let directory = (selfPath as NSString).deletingLastPathComponent
        let stream = options.stream ?? "\(directory)/stream"
        let work = options.work ?? NSTemporaryDirectory() + "stream-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let pair = try BenchContext.makeCertificate(in: work)
        let context = BenchContext(quick: options.quick, workDirectory: work, cacheDirectory: options.cache,
                                   streamExecutable: stream, selfExecutable: selfPath,
                                   certificate: pair.certificate, privateKey: pair.key,
                                   ingestScenario: options.ingestScenario, ingestSeconds: options.ingestSeconds)
        let runs = options.runs ?? (options.quick ? 1 : 3)
        let report = Report()
        let startLoad = Self.loadAverage()
        let started = Date()
        let items: [(Int, String, (Report) throws -> Void)] = [
            (1, "compositor", { try CompositorBench(context: context).run(into: $0) }),
            (2, "encoder", { try EncoderBench(context: context).run(into: $0) }),
            (4, "RTMPS send path", { try SendPathBench(context: context).run(into: $0) }),
            (5, "ingest relay", { try IngestBench(context: context).run(into: $0) }),
            (6, "pipeline scaling", { try PipelineBench(context: context).run(into: $0) }),
            (3, "broadcast end to end", { try BroadcastBench(context: context).run(into: $0) }),
            (7, "X11 capture", { try CaptureBench(context: context).run(into: $0) }),
            (8, "idle", { try IdleBench(context: context).run(into: $0) }),
            (9, "HTTP small file", { try HTTPFileBench(context: context).run(into: $0) }),
            (10, "WebSocket fan-out", { try WebSocketFanOutBench(context: context).run(into: $0) }),
            (11, "idle WebSockets", { try WebSocketIdleBench(context: context).run(into: $0) }),
            (12, "permessage-deflate", { try DeflateBench(context: context).run(into: $0) }),
            (13, "live show fan-out", { try ShowsBench(context: context).run(into: $0) }),
            (14, "LL-HLS readers", { try HLSBench(context: context).run(into: $0) }),
            (15, "WHIP vs RTMP", { try WHIPBench(context: context).run(into: $0) }),
            (16, "HMAC-SHA256", { try DigestBench(context: context).run(into: $0) }),
            (17, "broadcast paths", { try BroadcastPathsBench(context: context).run(into: $0) }),
            (18, "operations", { try OperationsBench(context: context).run(into: $0) }),
        ]
        for (number, name, body) in items where options.only.contains(number) {
            for run in 1...runs {
                let clock = Measure.now()
                log("item \(number) \(name): run \(run)/\(runs)")
                do {
                    try body(report)
                } catch {
                    report.note("item \(number) \(name), run \(run) failed: \(error)")
                    log("  failed: \(error)")
                    break
                }
                log(String(format: "  %.1f s", Measure.now() - clock))
            }
        }
        let missedGates = Targets.evaluate(report)
        report.note("load average at start \(startLoad), at end \(Self.loadAverage()) on "
                        + "\(ProcessInfo.processInfo.activeProcessorCount) cores (shared machine)")
        report.note("\(runs) run(s) per item, \(options.quick ? "quick" : "full") mode, work dir \(work)")
        let title = "Stream benchmarks, \(ISO8601DateFormatter().string(from: started)) "
            + "(\(options.quick ? "quick" : "full") mode, \(runs) run(s); medians)"
        let text = report.text(title: title)
        print(text, terminator: "")
        if let out = options.out {
            try text.write(toFile: out + ".txt", atomically: true, encoding: .utf8)
            try report.json(title: title).write(to: URL(fileURLWithPath: out + ".json"))
        }
        if !missedGates.isEmpty {
            throw BenchError("FAILED: " + missedGates.joined(separator: "; "))
        }
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data("[bench] \(text)\n".utf8))
    }
}
