#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPClient
import Locking

/// Item 10: one sender, 1000 receivers. The sender (a `WebSocketClient`) sends chat-sized JSON messages carrying
/// their send time to `HTTPServer`'s fan-out route (its own process), which encodes each once and sends it to every
/// receiver; the receivers (one event loop in this process) count deliveries and their latency.
struct WebSocketFanOutBench {
    let context: BenchContext
    static let receivers = 1000

    func run(into report: Report) throws {
        HTTPBenchServer.raiseOpenFileLimit()
        let port = try Loopback.freePort()
        let server = try ChildProcess(context.selfExecutable, ["http-child", "\(port)", context.workDirectory],
                                      logFile: context.file("http-child-fanout.log"))
        defer { server.stop(SIGKILL) }
        try ChildProcess.waitUntilListening(port)
        let clients = try BenchWebSockets()
        defer { clients.shutdown() }
        try clients.open(count: Self.receivers, port: port, path: "/fanout")
        let rate = context.quick ? 120 : 150
        let seconds = context.quick ? 4.0 : 10.0
        let sender = try runBlocking {
            try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/fanout?role=sender")
        }
        let serverCPUStart = ProcessTree.cpuSeconds(root: server.pid)
        let outcome = try runBlocking { () -> (sent: Int, latencies: [Double], elapsed: Double) in
            // One second of warm-up, then the measured window; messages go out in bursts every 10 ms.
            _ = try await Self.send(sender, rate: rate, seconds: 1)
            clients.startRecording()
            let started = Measure.now()
            let sent = try await Self.send(sender, rate: rate, seconds: seconds)
            let elapsed = Measure.now() - started
            try await Task.sleep(for: .milliseconds(500))  // the last messages land
            return (sent, clients.stopRecording(), elapsed)
        }
        let serverCPU = ProcessTree.cpuSeconds(root: server.pid) - serverCPUStart
        await_close(sender)
        let latencies = outcome.latencies
        let delivered = latencies.count
        let expected = outcome.sent * Self.receivers
        let section = "9 WebSocket fan-out 1 to \(Self.receivers)"
        report.record(section, "messages delivered per second", unit: "msg/s",
                      ours: Double(delivered) / outcome.elapsed,
                      note: "\(rate) chat messages/s (~130 bytes of JSON) for \(Int(seconds)) s, each encoded once "
                        + "and sent to \(Self.receivers) receivers; delivered \(delivered) of \(expected)")
        report.record(section, "delivery latency p50", unit: "ms", ours: Measure.percentile(latencies, 0.5))
        report.record(section, "delivery latency p99", unit: "ms", ours: Measure.percentile(latencies, 0.99))
        report.record(section, "messages lost", unit: "count", ours: Double(expected - delivered))
        report.record(section, "server CPU, share of one core", unit: "%", ours: serverCPU / outcome.elapsed * 100)
        report.record(section, "server peak RSS", unit: "MB", ours: Double(ProcessTree.peakRSS(root: server.pid)) / 1e6)
    }

    /// Sends `rate` messages a second for `seconds`, stamped with their send time.
    private static func send(_ sender: WebSocketClient, rate: Int, seconds: Double) async throws -> Int {
        let bursts = Int(seconds * 100)
        var sent = 0
        let start = Measure.now()
        for burst in 0..<bursts {
            let due = (burst + 1) * rate / 100
            while sent < due {
                let now = BenchWebSockets.monotonicNanoseconds()
                let text = #"{"type":"chat","id":\#(sent),"t":\#(now),"name":"viewer-\#(sent % 97)","#
                    + #""text":"hello everyone, what a show tonight!"}"#
                try await sender.send(text: text)
                sent += 1
            }
            let next = start + Double(burst + 1) / 100
            let wait = next - Measure.now()
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
        }
        return sent
    }

    private func await_close(_ sender: WebSocketClient) {
        _ = try? runBlocking { await sender.close() }
    }
}
