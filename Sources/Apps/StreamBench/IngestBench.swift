#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Item 5 (and the player axis of item 6): N ffmpeg publishers × M light players per stream, relayed by our
/// RTMPServer (`stream serve`, its own process) and by nginx-rtmp on the same machine, both at once and measured over
/// the same window.
struct IngestBench {
    let context: BenchContext
    static let bitrateKbps = 2500

    struct Outcome {
        var cpuPercent: Double
        var cpuMillisecondsPerMegabit: Double
        var peakRSS: Int
        var deliveredMegabitsPerSecond: Double
        var playersBehind: Int
        var worstBehind: Double
        var failedPlayers: Int
    }

    func run(into report: Report) throws {
        let scenarios = context.ingestScenario.map { [$0] } ?? (context.quick ? [(1, 3)] : [(4, 1), (4, 5), (4, 20)])
        let file = try context.encodedFLV(seconds: context.quick ? 20 : 60, kbps: Self.bitrateKbps)
        for (publishers, players) in scenarios {
            // At 4 x 1 each server uses ~1 % of a core (~0.1 s of CPU in 15 s): a longer window steadies the ratio.
            let duration = context.ingestSeconds ?? (context.quick ? 6.0 : players == 1 ? 40.0 : 15.0)
            let (ours, nginx) = try measureSideBySide(file: file, publishers: publishers, players: players,
                                                      duration: duration)
            let section = "5 ingest \(publishers) pub x \(players) players"
            let peer = "nginx-rtmp"
            report.record(section, "server CPU, share of one core", unit: "%", ours: ours.cpuPercent,
                          peer: nginx.cpuPercent, peerName: peer)
            report.record(section, "server CPU per delivered Mbit", unit: "ms/Mbit",
                          ours: ours.cpuMillisecondsPerMegabit, peer: nginx.cpuMillisecondsPerMegabit,
                          peerName: peer,
                          note: "publishers: ffmpeg -re -c copy of a \(Self.bitrateKbps) kbps 720p30 FLV; players: "
                            + "stream-bench's light RTMP player threads; ours = `stream serve --no-record`")
            report.record(section, "server peak RSS", unit: "MB", ours: Double(ours.peakRSS) / 1e6,
                          peer: Double(nginx.peakRSS) / 1e6, peerName: "\(peer) (master+worker)")
            report.record(section, "delivered to players", unit: "Mbit/s", ours: ours.deliveredMegabitsPerSecond,
                          peer: nginx.deliveredMegabitsPerSecond, peerName: peer)
            report.record(section, "players > 1 s behind or failed", unit: "count",
                          ours: Double(ours.playersBehind + ours.failedPlayers),
                          peer: Double(nginx.playersBehind + nginx.failedPlayers), peerName: peer)
            report.record(section, "worst player lag growth", unit: "s", ours: ours.worstBehind,
                          peer: nginx.worstBehind, peerName: peer)
        }
    }

    enum Server {
        case ours, nginx
    }

    /// Runs both servers at once, each with its own publishers and players, and reads both over the same window:
    /// the machine's load (other builds, other benchmarks) then weighs on both alike. One after the other, a load
    /// change between the two windows moved the 4 x 1 ratio by ±20-40 % from run to run.
    private func measureSideBySide(file: String, publishers: Int, players: Int,
                                   duration: Double) throws -> (ours: Outcome, nginx: Outcome) {
        let ours = try Rig(server: .ours, context: context, publishers: publishers, players: players)
        defer { ours.stop() }
        let nginx = try Rig(server: .nginx, context: context, publishers: publishers, players: players)
        defer { nginx.stop() }
        let warmup = 2.0
        let publishing = duration + warmup + 4
        try ours.startPublishers(file: file, seconds: publishing)
        try nginx.startPublishers(file: file, seconds: publishing)
        usleep(1_500_000)
        ours.startPlayers()
        nginx.startPlayers()
        usleep(UInt32(warmup * 1e6))
        let oursStart = ours.sample()
        let nginxStart = nginx.sample()
        let start = Measure.now()
        usleep(UInt32(duration * 1e6))
        let oursEnd = ours.sample()
        let nginxEnd = nginx.sample()
        let elapsed = Measure.now() - start
        return (try ours.outcome(from: oursStart, to: oursEnd, elapsed: elapsed),
                try nginx.outcome(from: nginxStart, to: nginxEnd, elapsed: elapsed))
    }

    /// One server under test with its publishers and players.
    private final class Rig {
        let name: String
        let port: Int
        let root: pid_t
        let publishers: Int
        let players: Int
        private let context: BenchContext
        private var nginx: NginxServer?
        private var serve: ChildProcess?
        private var feeders: [ChildProcess] = []
        private var audience: [RTMPPlayer] = []

        init(server kind: Server, context: BenchContext, publishers: Int, players: Int) throws {
            self.context = context
            self.publishers = publishers
            self.players = players
            name = kind == .ours ? "ours" : "nginx"
            switch kind {
            case .ours:
                port = try Loopback.freePort()
                let child = try ChildProcess(context.streamExecutable, [
                    "serve", "--listen", "127.0.0.1:\(port)", "--no-record", "--no-http",
                ], logFile: context.file("serve-\(publishers)x\(players).log"),
                   environment: ["XDG_CONFIG_HOME": context.file("xdg-config"),
                                 "XDG_DATA_HOME": context.file("xdg-data")])
                serve = child
                root = child.pid
                do {
                    try ChildProcess.waitUntilListening(port)
                } catch {
                    child.stop(SIGKILL)
                    throw BenchError("stream serve did not start: \(child.logTail())")
                }
            case .nginx:
                let server = try NginxServer(directory: context.file("nginx-ingest-\(publishers)x\(players)"),
                                             certificate: context.certificate, key: context.privateKey)
                nginx = server
                port = server.port
                root = server.child.pid
            }
        }

        func startPublishers(file: String, seconds: Double) throws {
            feeders = try (0..<publishers).map { index in
                try ChildProcess("ffmpeg", [
                    "-nostdin", "-hide_banner", "-loglevel", "error", "-re", "-i", file, "-t", "\(seconds)",
                    "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/bench\(index)",
                ], logFile: context.file("publisher-\(name)-\(index).log"))
            }
        }

        func startPlayers() {
            audience = (0..<publishers).flatMap { index in
                (0..<players).map { _ in RTMPPlayer(port: port, key: "bench\(index)") }
            }
            audience.forEach { $0.start() }
        }

        /// The server's CPU seconds so far (the scheduler's run times in ns, not /proc's 10 ms ticks: at 4 x 1 a
        /// server uses ~1 % of a core) and the bytes its players received.
        func sample() -> (cpu: Double, bytes: Int) {
            (ProcessTree.serverCPUSeconds(root: root),
             audience.reduce(0) { $0 + $1.statistics.bytesReceived })
        }

        func outcome(from start: (cpu: Double, bytes: Int), to end: (cpu: Double, bytes: Int),
                     elapsed: Double) throws -> Outcome {
            let cpu = end.cpu - start.cpu
            let delivered = Double(end.bytes - start.bytes) * 8 / 1e6
            let statistics = audience.map(\.statistics)
            let rss = ProcessTree.peakRSS(root: root)
            for feeder in feeders where feeder.hasExited {
                throw BenchError("a publisher to \(name) ended early: \(feeder.logTail())")
            }
            let failed = statistics.filter { $0.error != nil || $0.mediaMessages == 0 }
            if let first = failed.first, failed.count == statistics.count {
                throw BenchError("every player of \(name) failed: \(first.error ?? "no media received")")
            }
            return Outcome(cpuPercent: cpu / elapsed * 100,
                           cpuMillisecondsPerMegabit: delivered > 0 ? cpu / delivered * 1000 : 0,
                           peakRSS: rss, deliveredMegabitsPerSecond: delivered / elapsed,
                           playersBehind: statistics.filter { $0.behindAtEnd > 1 }.count,
                           worstBehind: statistics.map(\.worstBehind).max() ?? 0, failedPlayers: failed.count)
        }

        func stop() {
            audience.forEach { $0.stop() }
            feeders.forEach { $0.stop(SIGINT) }
            serve?.stop(SIGINT)
            nginx?.stop()
        }
    }
}
