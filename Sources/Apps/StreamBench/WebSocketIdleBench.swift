#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Item 11: the resident memory `HTTPServer` (its own process) holds per idle WebSocket, with 10,000 of them open.
struct WebSocketIdleBench {
    let context: BenchContext

    func run(into report: Report) throws {
        HTTPBenchServer.raiseOpenFileLimit()
        let count = context.quick ? 2000 : 10_000
        let port = try Loopback.freePort()
        let server = try ChildProcess(context.selfExecutable, ["http-child", "\(port)", context.workDirectory],
                                      logFile: context.file("http-child-idle.log"))
        defer { server.stop(SIGKILL) }
        try ChildProcess.waitUntilListening(port)
        let clients = try BenchWebSockets()
        defer { clients.shutdown() }
        // A first hundred warms the allocator and the code paths; the measure is what the rest add.
        try clients.open(count: 100, port: port, path: "/idle")
        usleep(500_000)
        let before = ProcessTree.statusField("VmRSS:", pid: server.pid) ?? 0
        try clients.open(count: count - 100, port: port, path: "/idle")
        usleep(2_000_000)
        let after = ProcessTree.statusField("VmRSS:", pid: server.pid) ?? 0
        let perConnection = Double(after - before) / Double(count - 100)
        let section = "10 idle WebSockets"
        report.record(section, "resident memory per idle WebSocket", unit: "KB", ours: perConnection / 1024,
                      note: "\(count) idle WebSockets to HTTPServer (own process); (VmRSS after - VmRSS after the "
                        + "first 100) / \(count - 100); kernel socket buffers are not in VmRSS")
        report.record(section, "server RSS with all open", unit: "MB", ours: Double(after) / 1e6)
    }
}
