import Foundation

/// nginx with libnginx-mod-rtmp as a real ingest, run in the foreground as a child of the test.
///
/// It records every publish of application `live` to `recordDirectory`; with `tls`, nginx's stream module
/// terminates TLS on `tlsPort` in front of the RTMP port (nginx-rtmp itself has no TLS).
public final class NginxRTMP: @unchecked Sendable {
    // Safe: all stored properties are immutable after init; the Process is only touched under `lock`.
    public let directory: TemporaryDirectory
    public let port: Int
    public let tlsPort: Int?
    public let certificate: TestCertificate?
    public let recordDirectory: String
    private let configFile: String
    private let lock = NSLock()
    private var process: Process

    /// Starts nginx.
    /// - Parameters:
    ///   - tls: also terminate RTMPS in front of the RTMP port.
    ///   - serverDirectives: extra directives for the `rtmp { server { } }` block (e.g. `on_connect URL;`).
    ///   - applicationDirectives: extra directives for `application live` (e.g. `on_publish URL;`).
    public init(tls: Bool = false, serverDirectives: String = "", applicationDirectives: String = "") throws {
        directory = try TemporaryDirectory("nginx-rtmp")
        port = try FreePort.next()
        recordDirectory = directory.file("recordings")
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        if tls {
            certificate = try TestCertificate.make(in: directory)
            tlsPort = try FreePort.next()
        } else {
            certificate = nil
            tlsPort = nil
        }
        let modules = "/usr/lib/nginx/modules"
        var config = """
        load_module \(modules)/ngx_rtmp_module.so;
        load_module \(modules)/ngx_stream_module.so;
        \(getuid() == 0 ? "user root;" : "")
        daemon off;
        master_process on;
        worker_processes 1;
        pid \(directory.file("nginx.pid"));
        error_log \(directory.file("error.log")) info;
        events { worker_connections 256; }
        rtmp {
            server {
                listen 127.0.0.1:\(port);
                chunk_size 4096;
                \(serverDirectives)
                application live {
                    live on;
                    record all;
                    record_path \(recordDirectory);
                    record_unique on;
                    \(applicationDirectives)
                }
            }
        }

        """
        if let tlsPort, let certificate {
            config += """
            stream {
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    proxy_pass 127.0.0.1:\(port);
                    ssl_certificate \(certificate.certificateFile);
                    ssl_certificate_key \(certificate.keyFile);
                }
            }

            """
        }
        configFile = directory.file("nginx.conf")
        try config.write(toFile: configFile, atomically: true, encoding: .utf8)
        process = Process()
        try launch()
    }

    /// Starts nginx with the configuration and waits until it listens.
    private func launch() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Subprocess.resolve("nginx"))
        process.arguments = ["-p", directory.path, "-e", directory.file("error.log"), "-c", configFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        do {
            try FreePort.waitUntilListening(port)
            if let tlsPort { try FreePort.waitUntilListening(tlsPort) }
        } catch {
            stop()
            throw Subprocess.Failure(description: "nginx did not start: \(errorLog)")
        }
    }

    /// Kills nginx at once, master and worker (SIGKILL: no goodbye to clients, recordings left as they are), as
    /// when the server crashes or its machine goes away.
    public func crash() {
        lock.withLock {
            guard process.isRunning else { return }
            let master = process.processIdentifier
            let workers = childProcesses(of: master)
            kill(master, SIGKILL)
            for worker in workers { kill(worker, SIGKILL) }
            process.waitUntilExit()
            // The workers were re-parented away from us; wait until they are gone so the port is free.
            let deadline = Date().addingTimeInterval(5)
            while workers.contains(where: { kill($0, 0) == 0 }) && Date() < deadline { usleep(10_000) }
        }
    }

    /// Freezes nginx, master and worker (SIGSTOP), as a server that hangs: its sockets stay open, the kernel still
    /// accepts connections and fills the receive buffers, nothing is read or answered until ``thaw()``.
    public func freeze() {
        signalAll(SIGSTOP)
    }

    /// Lets a frozen nginx go on (SIGCONT).
    public func thaw() {
        signalAll(SIGCONT)
    }

    private func signalAll(_ signal: Int32) {
        lock.withLock {
            guard process.isRunning else { return }
            let master = process.processIdentifier
            for pid in [master] + childProcesses(of: master) { kill(pid, signal) }
        }
    }

    /// Starts nginx again on the same ports and directories after ``crash()`` or ``stop()``.
    public func restart() throws {
        let running = lock.withLock { process.isRunning }
        guard !running else { return }
        try launch()
    }

    /// The RTMP URL of application `live` (without a stream key).
    public var rtmpURL: String { "rtmp://127.0.0.1:\(port)/live" }

    /// The RTMPS URL of application `live`, through the TLS front.
    public var rtmpsURL: String? { tlsPort.map { "rtmps://127.0.0.1:\($0)/live" } }

    /// nginx's error log, for failure messages.
    public var errorLog: String {
        (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? "(no error log)"
    }

    /// The FLV files nginx has recorded so far, oldest first.
    public func recordings() -> [String] {
        Self.flvFiles(in: recordDirectory)
    }

    /// The paths of the FLV files in `directory`, sorted by name (oldest first for time-stamped names).
    public static func flvFiles(in directory: String) -> [String] {
        files(in: directory, ending: ".flv")
    }

    /// The files in `directory` whose names end in `suffix` (".mp4"), sorted, as paths.
    public static func files(in directory: String, ending suffix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { "\(directory)/\($0)" }
    }

    /// Stops nginx gracefully (SIGQUIT lets it finish recordings), then forcibly; a frozen one is thawed first.
    public func stop() {
        lock.withLock {
            guard process.isRunning else { return }
            let master = process.processIdentifier
            for pid in [master] + childProcesses(of: master) { kill(pid, SIGCONT) }
            kill(master, SIGQUIT)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
