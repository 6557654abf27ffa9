#if canImport(Glibc)
import Glibc
#endif
import Broadcast
import Engine
import Foundation
import Locking
import StreamCore

/// Item 8: what waiting costs. The CPU of an idle `stream serve`, and of a broadcast paused with its output live (the
/// RTMP connection up, no media) together with the server it publishes to, each over a measured window read from
/// /proc: drivers that wait on events cost nothing while nothing happens.
struct IdleBench {
    let context: BenchContext

    func run(into report: Report) throws {
        let seconds = context.quick ? 10.0 : 30.0
        let port = try Loopback.freePort()
        let serve = try ChildProcess(context.streamExecutable, ["serve", "--listen", "127.0.0.1:\(port)"],
                                     logFile: context.file("idle-serve.log"))
        defer { _ = serve.stop() }
        try ChildProcess.waitUntilListening(port)
        sleep(1)
        let idle = Self.cpuPercent(of: [serve.pid], over: seconds)[0]
        report.record("8 idle", "stream serve, no connection", unit: "% CPU", ours: idle)

        let log = context.file("idle-paused.log")
        let child = try ChildProcess(context.selfExecutable, ["paused-child", "\(port)", "\(Int(seconds) + 5)"],
                                     logFile: log)
        let deadline = Measure.now() + 30
        while !child.logTail().contains("paused"), Measure.now() < deadline { usleep(100_000) }
        guard child.logTail().contains("paused") else {
            _ = child.stop()
            throw BenchError("the paused broadcast did not go live: \(child.logTail())")
        }
        let window = Self.cpuPercent(of: [child.pid, serve.pid], over: seconds)
        let usage = child.wait()
        guard usage.exitStatus == 0 else { throw BenchError("paused broadcast failed: \(child.logTail())") }
        report.record("8 idle", "broadcast paused, output live", unit: "% CPU", ours: window[0])
        report.record("8 idle", "stream serve, one paused publisher", unit: "% CPU", ours: window[1])
        report.note("item 8: \(Int(seconds)) s windows of /proc utime + stime (10 ms ticks); the paused broadcast "
                        + "publishes to the measured stream serve")
    }

    /// The CPU each process used over the next `seconds`, as a percentage of one core.
    static func cpuPercent(of pids: [pid_t], over seconds: Double) -> [Double] {
        let before = pids.map { ProcessTree.cpuSeconds(pid: $0) ?? 0 }
        let start = Measure.now()
        usleep(UInt32(seconds * 1_000_000))
        let elapsed = max(0.001, Measure.now() - start)
        return zip(pids, before).map { pid, before in
            ((ProcessTree.cpuSeconds(pid: pid) ?? 0) - before) * 100 / elapsed
        }
    }

    /// The child: broadcasts the test sources (480p30) to `stream serve` on `port`, goes live, pauses, says
    /// "paused", holds the pause for `seconds`, resumes for a second and stops.
    static func pausedChild(port: Int, seconds: Int) throws {
        let settings = StreamSettings.defaults(for: .p480, frameRate: .fps30)
        let sink = RTMPSink(url: IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live"),
                            streamKey: "idle-bench")
        let session = try BroadcastSession(
            configuration: BroadcastConfiguration(settings: settings, screenSize: PixelSize(width: 854, height: 480)),
            outputs: [BroadcastOutput(sink: sink)])
        let final = try runBlocking { () async -> BroadcastState in
            async let final = session.run()
            if await session.engine.waitUntilLive() {
                try? await Task.sleep(for: .seconds(2))
                session.pause()
                try? await Task.sleep(for: .milliseconds(500))
                FileHandle.standardOutput.write(Data("paused\n".utf8))
                try? await Task.sleep(for: .seconds(seconds))
                session.resume()
                try? await Task.sleep(for: .seconds(1))
            }
            session.stop()
            return await final
        }
        guard case .ended = final else { throw BenchError("the paused broadcast ended \(final)") }
    }
}
