#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// nginx + libnginx-mod-rtmp as the peer ingest, in the foreground as our child, with nginx's stream module
/// terminating TLS in front of it for RTMPS. No recording: the benchmarks measure relaying, not disk writes.
final class NginxServer {
    let directory: String
    let port: Int
    let tlsPort: Int
    let child: ChildProcess

    /// Starts nginx in `directory` (created) with the certificate pair `certificate` / `key`.
    init(directory: String, certificate: String, key: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Loopback.freePort()
        tlsPort = try Loopback.freePort()
        let config = """
            load_module \(Self.modules)/ngx_rtmp_module.so;
            load_module \(Self.modules)/ngx_stream_module.so;
            \(Self.preamble(directory: directory))
            \(Self.rtmpBlock(port: port))
            stream {
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    proxy_pass 127.0.0.1:\(port);
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                }
            }

            """
        try config.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        child = try ChildProcess("nginx", ["-p", directory, "-e", "\(directory)/error.log",
                                           "-c", "\(directory)/nginx.conf"],
                                 logFile: "\(directory)/stdout.log")
        do {
            try ChildProcess.waitUntilListening(port)
            try ChildProcess.waitUntilListening(tlsPort)
        } catch {
            child.stop(SIGKILL)
            let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
            throw BenchError("nginx did not start: \(log.suffix(500))")
        }
    }

    /// The main context every benchmark nginx shares: foreground, one worker (so it is compared with one event loop
    /// of ours), files in `directory`.
    static func preamble(directory: String) -> String {
        """
        \(getuid() == 0 ? "user root;" : "")
        daemon off;
        master_process on;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections 1024; }
        """
    }

    /// Where Debian's libnginx-mod-rtmp and libnginx-mod-stream put their modules.
    static let modules = "/usr/lib/nginx/modules"

    /// The `rtmp` block every benchmark nginx-rtmp shares: one application, `live`, relaying each publish to its
    /// players, on 127.0.0.1:`port`; `live` adds directives to the application (HLS packaging, for item 14).
    static func rtmpBlock(port: Int, live directives: [String] = []) -> String {
        """
        rtmp {
            server {
                listen 127.0.0.1:\(port);
                chunk_size 4096;
                application live {
                    live on;\(directives.map { " \($0)" }.joined())
                }
            }
        }
        """
    }

    var rtmpURL: String { "rtmp://127.0.0.1:\(port)/live" }
    var rtmpsURL: String { "rtmps://127.0.0.1:\(tlsPort)/live" }

    /// Stops nginx gracefully (SIGQUIT), then forcibly.
    func stop() {
        child.stop(SIGQUIT)
    }

    deinit { stop() }
}
