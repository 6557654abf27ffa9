#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Item 9: requests per second for a small file over keep-alive connections, `HTTPServer` (release, its own
/// process, one event loop) beside nginx (one worker) serving the same file, both loaded by wrk one after the
/// other on the same machine.
struct HTTPFileBench {
    let context: BenchContext
    static let fileSize = 1024
    static let connections = 32

    func run(into report: Report) throws {
        let directory = context.file("http-files")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let body = String(repeating: "<p>stream</p>\n", count: Self.fileSize / 14 + 1).prefix(Self.fileSize)
        try String(body).write(toFile: "\(directory)/small.html", atomically: true, encoding: .utf8)
        let seconds = context.quick ? 3 : 8

        let port = try Loopback.freePort()
        let ours = try ChildProcess(context.selfExecutable, ["http-child", "\(port)", directory],
                                    logFile: context.file("http-child-files.log"))
        defer { ours.stop(SIGKILL) }
        try ChildProcess.waitUntilListening(port)
        let oursResult = try load(url: "http://127.0.0.1:\(port)/files/small.html", seconds: seconds, server: ours.pid)

        let nginx = try NginxStaticServer(directory: context.file("nginx-static"), root: directory, sendfile: false)
        let nginxResult = try load(url: "http://127.0.0.1:\(nginx.port)/files/small.html", seconds: seconds,
                                   server: nginx.child.pid)
        nginx.stop()
        // Debian's stock nginx.conf turns sendfile and tcp_nopush on: measured too, as installed.
        let stock = try NginxStaticServer(directory: context.file("nginx-static-stock"), root: directory,
                                          sendfile: true)
        let stockResult = try load(url: "http://127.0.0.1:\(stock.port)/files/small.html", seconds: seconds,
                                   server: stock.child.pid)
        stock.stop()

        let section = "8 HTTP small file, keep-alive"
        report.record(section, "requests per second", unit: "req/s", ours: oursResult.requestsPerSecond,
                      peer: nginxResult.requestsPerSecond, peerName: "nginx",
                      note: "a \(Self.fileSize)-byte file, wrk -t1 -c\(Self.connections) -d\(seconds)s; ours = "
                        + "HTTPServer (one event loop) in its own process, nginx with one worker, access log off")
        report.record(section, "requests per second vs nginx with sendfile, tcp_nopush", unit: "req/s",
                      ours: oursResult.requestsPerSecond, peer: stockResult.requestsPerSecond,
                      peerName: "nginx (Debian's sendfile on, tcp_nopush on)")
        report.record(section, "latency p99", unit: "ms", ours: oursResult.p99Milliseconds,
                      peer: nginxResult.p99Milliseconds, peerName: "nginx")
        report.record(section, "server CPU, share of one core", unit: "%", ours: oursResult.serverCPUPercent,
                      peer: nginxResult.serverCPUPercent, peerName: "nginx")
    }

    struct Outcome {
        var requestsPerSecond: Double
        var p99Milliseconds: Double?
        var serverCPUPercent: Double
    }

    private func load(url: String, seconds: Int, server: pid_t) throws -> Outcome {
        // A short warm-up, then the measured run.
        try ChildProcess.run("wrk", ["-t1", "-c\(Self.connections)", "-d1s", url],
                             logFile: context.file("wrk-warmup.log"))
        let log = context.file("wrk-\(server).log")
        let cpuStart = ProcessTree.cpuSeconds(root: server)
        let started = Measure.now()
        try ChildProcess.run("wrk", ["-t1", "-c\(Self.connections)", "-d\(seconds)s", "--latency", url], logFile: log)
        let cpu = ProcessTree.cpuSeconds(root: server) - cpuStart
        let elapsed = Measure.now() - started
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
              let value = Double(line.split(separator: " ").last ?? "") else {
            throw BenchError("wrk printed no Requests/sec: \(output.suffix(400))")
        }
        if output.contains("Non-2xx") { throw BenchError("wrk saw errors: \(output.suffix(400))") }
        let p99 = output.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("99%") }
            .flatMap { Self.milliseconds(String($0.split(separator: " ").last ?? "")) }
        return Outcome(requestsPerSecond: value, p99Milliseconds: p99, serverCPUPercent: cpu / elapsed * 100)
    }

    /// wrk's latency text ("1.23ms", "850.00us", "1.02s") in milliseconds.
    static func milliseconds(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }
}

/// nginx serving a directory over HTTP (one worker, access log off, long keep-alive), as the peer of item 9: with
/// nginx's compiled defaults (sendfile off), or with sendfile and tcp_nopush on as Debian's stock nginx.conf has.
/// Item 14 also has the same worker ingest RTMP and package each publish as HLS, as stream serve does.
final class NginxStaticServer {
    let port: Int
    /// Where nginx-rtmp takes publishes (`rtmp://127.0.0.1:PORT/live`), when started with `hlsDirectory`.
    let ingestURL: String?
    let child: ChildProcess

    /// Starts nginx in `directory` (created) serving `root` at `/files/`; with `hlsDirectory`, nginx-rtmp also takes
    /// publishes at `ingestURL` and writes each as HLS (MPEG-TS, 2 s fragments) into `hlsDirectory`, which is not
    /// served.
    init(directory: String, root: String, sendfile: Bool, hlsDirectory: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Loopback.freePort()
        var ingest = ""
        var rtmpPort: Int?
        if let hlsDirectory {
            let ingestPort = try Loopback.freePort()
            // The worker runs as we do (the preamble's `user root;` when we are root, else nginx cannot switch), so
            // it can write into our scratch directory however private: as nobody, stat() of it was refused.
            ingest = NginxServer.rtmpBlock(port: ingestPort, live: [
                "hls on;", "hls_path \(hlsDirectory);", "hls_fragment 2s;",
            ])
            rtmpPort = ingestPort
        }
        ingestURL = rtmpPort.map { "rtmp://127.0.0.1:\($0)/live" }
        let config = """
            \(rtmpPort == nil ? "" : "load_module \(NginxServer.modules)/ngx_rtmp_module.so;")
            \(NginxServer.preamble(directory: directory))
            \(ingest)
            http {
                access_log off;
                keepalive_requests 1000000;
                sendfile \(sendfile ? "on" : "off");
                tcp_nopush \(sendfile ? "on" : "off");
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location /files/ { alias \(root)/; }
                }
            }

            """
        try config.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        child = try ChildProcess("nginx", ["-p", directory, "-e", "\(directory)/error.log", "-c",
                                           "\(directory)/nginx.conf"], logFile: "\(directory)/stdout.log")
        do {
            try ChildProcess.waitUntilListening(port)
            if let rtmpPort { try ChildProcess.waitUntilListening(rtmpPort) }
        } catch {
            child.stop(SIGKILL)
            throw BenchError("nginx did not start: \(child.logTail())")
        }
    }

    func stop() {
        child.stop(SIGQUIT)
    }

    deinit { stop() }
}
