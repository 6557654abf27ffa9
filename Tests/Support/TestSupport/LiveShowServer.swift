import Foundation

/// A real `stream serve --shows` on loopback for tests of live-show clients: its shows file, token secret (0600) and
/// data directory in a temporary directory; restartable on the same ports and store.
public final class LiveShowServer: @unchecked Sendable {
    // @unchecked Sendable: `process` and `starts` change only in start() and stop(), which a test calls from one
    // task at a time.

    /// The token secret the server is started with (tests mint tokens with it).
    public static let secretText = "7d1f3c5e9a0b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b\n"
    /// Hosts `ann`; the mod of `show:X` is the user `X`; visitors watch `show:*` and read `quiet:*` only.
    public static let defaultShows = """
        {"streams": [
          {"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}"], "users": "viewer", "visitors": "viewer",
           "reactions": true},
          {"pattern": "quiet:{id}", "hosts": ["ann"], "visitors": "read_only", "reactions": true}
        ]}
        """

    /// The temporary directory of the server's files (and the tests' own).
    public let work: TemporaryDirectory
    /// The token secret file (mode 0600).
    public let secretFile: String
    /// The HTTP port.
    public let httpPort: Int
    /// The RTMP ingest port.
    public let rtmpPort: Int
    private var process: BackgroundProcess?
    private var starts = 0

    /// Starts the server.
    public init(shows: String = defaultShows) throws {
        work = try TemporaryDirectory("live-show-server")
        secretFile = work.file("token-secret")
        try Self.secretText.write(toFile: secretFile, atomically: true, encoding: .utf8)
        chmod(secretFile, 0o600)
        try shows.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        httpPort = try FreePort.next()
        rtmpPort = try FreePort.next()
        try start()
    }

    /// Starts (again) on the same ports and data directory; its standard error goes to `serve-N.err`.
    public func start() throws {
        starts += 1
        process = try BackgroundProcess(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            // A UDP port of its own for WHIP/WHEP: the default 8189 is whichever test took it first.
            "--webrtc-listen", "127.0.0.1:0", "--metrics-listen", "off", "--shows", work.file("shows.json"),
            "--token-secret-file", secretFile, "--data-dir", work.file("data"),
        ], environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve-\(starts).err"))
        try FreePort.waitUntilListening(httpPort)
    }

    /// Stops the server (SIGTERM, then SIGKILL after a grace period).
    public func stop() {
        process?.stop()
        process = nil
    }

    /// Kills the server at once (SIGKILL: no close frames, as a crash ends it).
    public func crash() {
        process?.crash()
        process = nil
    }

    /// The server's next line of standard output (its log), within `timeout` seconds.
    public func readLine(timeout: TimeInterval) throws -> String {
        guard let process else { throw Subprocess.Failure(description: "the server is not running") }
        return try process.readLine(timeout: timeout)
    }

    /// The server's HTTP base URL, as apps and `stream watch` take it.
    public var base: String { "http://127.0.0.1:\(httpPort)" }

    /// Everything the server wrote to standard error so far, every start.
    public func errorLog() -> String {
        (1...max(starts, 1)).compactMap { try? String(contentsOfFile: work.file("serve-\($0).err"), encoding: .utf8) }
            .joined()
    }

    /// Writes `token` to a new file of mode 0600 and returns its path.
    public func tokenFile(_ token: String) throws -> String {
        let path = work.file("token-\(UUID().uuidString.prefix(8))")
        try (token + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    deinit { process?.stop() }
}
