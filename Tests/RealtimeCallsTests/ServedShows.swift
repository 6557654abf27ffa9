import Foundation
import Identity
import RealtimeCalls
import TestSupport
import Testing

/// A real `stream serve --shows` on loopback for the client's tests, with its token secret (0600) and data
/// directory; restartable on the same ports and store.
final class ServedShows: @unchecked Sendable {
    // @unchecked Sendable: `process` and `starts` change only in start() and stop(), which tests call from one task.
    static let shows = """
        {"streams": [
          {"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}"], "users": "viewer", "visitors": "viewer",
           "reactions": true},
          {"pattern": "quiet:{id}", "hosts": ["ann"], "visitors": "read_only", "reactions": true}
        ]}
        """
    static let secretText = "7d1f3c5e9a0b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b\n"

    let work: TemporaryDirectory
    let secretFile: String
    let httpPort: Int
    let rtmpPort: Int
    private(set) var process: BackgroundProcess?
    private var starts = 0

    init() throws {
        work = try TemporaryDirectory("realtime-calls")
        secretFile = work.file("token-secret")
        try Self.secretText.write(toFile: secretFile, atomically: true, encoding: .utf8)
        #expect(chmod(secretFile, 0o600) == 0)
        try Self.shows.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        httpPort = try FreePort.next()
        rtmpPort = try FreePort.next()
        try start()
    }

    func start() throws {
        starts += 1
        process = try BackgroundProcess(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            "--shows", work.file("shows.json"), "--token-secret-file", secretFile, "--data-dir", work.file("data"),
        ], environment: ["XDG_CONFIG_HOME": work.file("config")], errorLog: work.file("serve-\(starts).err"))
        try FreePort.waitUntilListening(httpPort)
    }

    func stop() {
        process?.stop()
        process = nil
    }

    /// The server's HTTP base URL, as apps give it.
    var base: String { "http://127.0.0.1:\(httpPort)" }

    /// A token for `user`, valid for `seconds` (negative: already expired).
    static func token(_ user: String, name: String? = nil, seconds: Int64 = 3600) -> String {
        let secret = try! TokenSecret(fileContents: Array(secretText.utf8))  // the constant above is a valid secret
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken(subject: user, name: name, expiresAt: now + seconds, issuedAt: now).signed(with: secret)
    }

    /// A client of this server signed in as `user` (nil: a visitor).
    func client(_ user: String?, options: Realtime.Options = Realtime.Options()) -> Realtime {
        Realtime(server: base, options: options) { user.map { Self.token($0) } }
    }

    /// Writes a script to the work directory and starts `python3` on it.
    func python(_ script: String, _ arguments: [String]) throws -> BackgroundProcess {
        let path = work.file("peer-\(UUID().uuidString.prefix(8)).py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return try BackgroundProcess("python3", [path, base.replacingOccurrences(of: "http://", with: "ws://"),
                                                 secretFile] + arguments,
                                     errorLog: work.file("python.err"))
    }

    deinit { process?.stop() }
}

/// Waits until `predicate` holds for the show (checked at once and after every event), or fails after `timeout`.
func waitFor(_ show: LiveStream, _ what: String, timeout: Duration = .seconds(15),
             _ predicate: @escaping @Sendable (LiveStream) -> Bool) async throws {
    let events = show.events
    if predicate(show) { return }
    let held = try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in events where predicate(show) { return true }
            return predicate(show)
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return predicate(show)
        }
        defer { group.cancelAll() }
        return try await group.next() ?? false
    }
    if !held { throw WaitFailure(description: "timed out waiting for \(what) on \(show.name)") }
}

/// A wait that timed out.
struct WaitFailure: Error, CustomStringConvertible {
    var description: String
}
