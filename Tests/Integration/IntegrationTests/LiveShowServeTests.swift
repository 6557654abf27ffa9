import Foundation
import TestSupport
import Testing

/// `stream serve --shows` as a user runs it, with Python `websockets` clients playing host, mods, viewers and
/// visitors, ffmpeg publishing as OBS would, and the server stopped, restarted and killed.
@Suite(.serialized) struct LiveShowServeTests {
    static let shows = """
        {"streams": [
          {"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}", "max"], "users": "viewer",
           "visitors": "viewer", "reactions": true},
          {"pattern": "quiet:{id}", "hosts": ["ann"], "visitors": "read_only", "reactions": true},
          {"pattern": "private:{id}", "hosts": ["ann"]}
        ]}
        """

    /// A running `stream serve --shows` with its files.
    final class Served {
        let work: TemporaryDirectory
        let secretFile: String
        let showsFile: String
        let dataDirectory: String
        let httpPort: Int
        let rtmpPort: Int
        private(set) var process: BackgroundProcess?
        private var starts = 0
        /// More options for the next ``start()``.
        var serveArguments: [String] = []

        init(serveArguments: [String] = []) throws {
            self.serveArguments = serveArguments
            work = try TemporaryDirectory("live-shows")
            secretFile = work.file("token-secret")
            showsFile = work.file("shows.json")
            dataDirectory = work.file("data")
            try "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e\n".write(toFile: secretFile, atomically: true,
                                                                          encoding: .utf8)
            #expect(chmod(secretFile, 0o600) == 0)
            try LiveShowServeTests.shows.write(toFile: showsFile, atomically: true, encoding: .utf8)
            for (name, text) in LiveShowPeers.scripts {
                try text.write(toFile: work.file(name), atomically: true, encoding: .utf8)
            }
            httpPort = try FreePort.next()
            rtmpPort = try FreePort.next()
            try start()
        }

        func start() throws {
            starts += 1
            // Ports of its own unless a test names them: the defaults (UDP 8189, metrics 9464) go to whichever
            // server started first, and a watch page would play over WebRTC or not by chance.
            var own: [String] = []
            if !serveArguments.contains("--webrtc-listen") { own += ["--webrtc-listen", "127.0.0.1:0"] }
            if !serveArguments.contains("--metrics-listen") { own += ["--metrics-listen", "off"] }
            // Not recording, unless a test names where to.
            if !serveArguments.contains("--record-dir") { own += ["--no-record"] }
            let process = try BackgroundProcess(try StreamExecutable.url().path, [
                "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)",
                "--shows", showsFile, "--token-secret-file", secretFile, "--data-dir", dataDirectory,
            ] + own + serveArguments, environment: TemporaryConfigHome.environment(in: work.path),
                errorLog: work.file("serve-\(starts).err"))
            self.process = process
            try FreePort.waitUntilListening(httpPort)
        }

        var base: String { "ws://127.0.0.1:\(httpPort)" }

        /// Runs a peer script; returns its last line (a JSON summary).
        func python(_ script: String, _ arguments: [String] = [], timeout: TimeInterval = 120) throws -> String {
            let result = try Subprocess.run("python3", [work.file(script), base, secretFile] + arguments,
                                            timeout: timeout)
            #expect(result.status == 0, "\(script): \(result.stderr)")
            return result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        }

        deinit { process?.stop() }
    }

    @Test func everyRoleErrorCodeAndModerationActionAsTheSeedSays() throws {
        let served = try Served()
        let summary = try served.python("scenario.py")
        #expect(summary.hasPrefix(#"{"checks": "#), "\(summary)")
    }

    /// Issue 34 defect A: a show's LL-HLS opens only with a joined session's media token, for that show, until its
    /// user is banned (403); without one, or another show's, 401; the tokens never reach the log.
    @Test func aShowsMediaNeedsTheTokenOfASessionThatJoined() throws {
        let served = try Served()
        let summary = try served.python("media.py", [served.work.path], timeout: 90)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any],
                                  "\(summary)")
        let expected: [String: Int] = [
            "distinct": 3, "bob playlist": 200, "bob init": 200, "bob part": 200, "visitor playlist": 200,
            "no token playlist": 401, "no token init": 401, "bob token, other show": 401,
            "bob closed": 4403, "bob playlist after ban": 403, "bob init after ban": 403,
            "bob part after ban": 403, "visitor playlist after ban": 200, "ann playlist after ban": 200,
        ]
        for (name, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(report[name] as? Int == value, "\(name): \(report[name] ?? "missing")")
        }
        #expect((590...600).contains(report["expiresIn"] as? Int ?? 0), "\(report["expiresIn"] ?? "missing")")
        #expect((report["bob refusal"] as? String)?.contains("banned") == true, "\(report["bob refusal"] ?? "")")
        #expect(report["stranger private"] as? String == "unauthorized" && report["stranger token"] as? Bool == false)
        let tokens = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: served.work.file("tokens.json")))) as? [String: String])
        var log = (try? String(contentsOfFile: served.work.file("serve-1.err"), encoding: .utf8)) ?? ""
        while let line = try? served.process?.readLine(timeout: 0.5) { log += line + "\n" }
        #expect(log.contains("LL-HLS: "), "the standard output was not read: \(log.suffix(500))")
        for (who, token) in tokens { #expect(!log.contains(token), "\(who)'s media token reached the log") }
    }

    /// ffmpeg publishes with the URL and key from `ingest()`: live with the OBS tile; `ingest(renew: true)` cuts
    /// it within a second and refuses the old key; the new key works; `end()` cuts it again.
    @Test func ffmpegGoesLiveWithTheIngestKeyAndIsCutAfterRenew() throws {
        let served = try Served()
        let summary = try served.python("ingest.py", [served.work.path])
        let report = try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any]
        let cut = try #require(report?["cutAfterSeconds"] as? Double)
        #expect(cut < 1, "cut after \(cut) s")
        #expect((report?["refusedExit"] as? Int).map { $0 != 0 } == true)
        let log = try String(contentsOfFile: served.work.file("serve-1.err"), encoding: .utf8)
        #expect(!log.contains("live_"), "an OBS key reached the log")
    }

    /// Stopped and restarted, then killed with SIGKILL during a chat burst: history, pins, bans, timeouts and keys
    /// are there afterwards, and no acknowledged message is lost.
    @Test func restartAndSIGKILLLoseNoAcknowledgedMessage() throws {
        let served = try Served()
        let acked = served.work.file("acked.jsonl")
        let burst = try BackgroundProcess("python3", [served.work.file("burst.py"), served.base, served.secretFile,
                                                      acked, "20"], errorLog: served.work.file("burst.err"))
        #expect(try burst.readLine(timeout: 30) == "bursting")
        Thread.sleep(forTimeInterval: 1.5)
        served.process?.crash()
        _ = burst.waitForExit(timeout: 20)
        let count = try String(contentsOfFile: acked, encoding: .utf8).split(separator: "\n").count
        #expect(count > 50, "only \(count) messages acknowledged before the kill")
        try served.start()
        let summary = try served.python("afterwards.py", [acked])
        #expect(summary.contains(#""acknowledged": \#(count)"#), "\(summary)")
        // The database itself, read by the sqlite3 program, holds every acknowledged message.
        let stored = try Subprocess.run("sqlite3", [served.dataDirectory + "/shows.sqlite3",
                                                    "SELECT id FROM messages WHERE show = 'show:mugs'"])
        let ids = Set(stored.stdout.split(separator: "\n").compactMap { Int($0) })
        let ackedIDs = try String(contentsOfFile: acked, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
        }
        #expect(ackedIDs.count == count && Set(ackedIDs).isSubset(of: ids))
        // A clean stop and start keeps it all too.
        served.process?.stop()
        try served.start()
        #expect(try served.python("afterwards.py", [acked]).contains(#""acknowledged": \#(count)"#))
    }

    /// The same with `--store postgres://...` on a PostgreSQL of the test's own: killed during a chat burst, then
    /// started again, the server loses no acknowledged message, and psql (not our client) finds every one in
    /// PostgreSQL, none in an SQLite file.
    @Test func inPostgreSQLSIGKILLLosesNoAcknowledgedMessage() throws {
        let postgres = try PostgresServer()
        let served = try Served(serveArguments: ["--store", postgres.url()])
        let acked = served.work.file("acked.jsonl")
        let burst = try BackgroundProcess("python3", [served.work.file("burst.py"), served.base, served.secretFile,
                                                      acked, "20"], errorLog: served.work.file("burst.err"))
        #expect(try burst.readLine(timeout: 30) == "bursting")
        func acknowledged() -> [Int] {
            ((try? String(contentsOfFile: acked, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while acknowledged().count < 60 && Date() < deadline { usleep(20_000) }
        served.process?.crash()
        _ = burst.waitForExit(timeout: 20)
        let ackedIDs = acknowledged()
        #expect(ackedIDs.count >= 60, "only \(ackedIDs.count) messages acknowledged before the kill")
        try served.start()
        let summary = try served.python("afterwards.py", [acked])
        #expect(summary.contains(#""acknowledged": \#(ackedIDs.count)"#), "\(summary)")
        let stored = try postgres.psql("SELECT id FROM messages WHERE show = 'show:mugs'", database: "postgres")
        let ids = Set(stored.split(separator: "\n").compactMap { Int($0) })
        #expect(Set(ackedIDs).isSubset(of: ids), "\(ackedIDs.count) acknowledged, \(ids.count) stored")
        #expect(!FileManager.default.fileExists(atPath: served.dataDirectory + "/shows.sqlite3"))
    }

    /// PostgreSQL not there when the server starts: it says so, naming the server without a password, and exits.
    @Test func aPostgreSQLThatIsNotThereStopsTheStart() throws {
        let work = try TemporaryDirectory("live-shows-store")
        try Self.shows.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        try String(repeating: "s", count: 40).write(toFile: work.file("secret"), atomically: true, encoding: .utf8)
        #expect(chmod(work.file("secret"), 0o600) == 0)
        try "hunter2-password\n".write(toFile: work.file("password"), atomically: true, encoding: .utf8)
        #expect(chmod(work.file("password"), 0o600) == 0)
        let port = try FreePort.next()
        let result = try Subprocess.run(try StreamExecutable.url().path, [
            "serve", "--no-record", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--webrtc-listen",
            "127.0.0.1:0", "--metrics-listen", "off", "--shows", work.file("shows.json"), "--token-secret-file",
            work.file("secret"), "--data-dir", work.file("data"),
            "--store", "postgres://stream@127.0.0.1:\(port)/shows", "--store-password-file", work.file("password"),
        ], timeout: 30, environment: TemporaryConfigHome.environment(in: work.path))
        #expect(result.status != 0)
        let said = result.stdout + result.stderr
        #expect(said.contains("cannot connect to PostgreSQL at postgres://stream@127.0.0.1:\(port)/shows"), "\(said)")
        #expect(!said.contains("hunter2"))
    }

    /// CI-size load: 500 watchers and 20 writers in one show; every watcher gets every message once, in order.
    @Test func fiveHundredWatchersAndTwentyWriters() throws {
        let served = try Served()
        let summary = try served.python("load.py", ["500", "20", "5"], timeout: 180)
        #expect(summary.contains(#""deliveries": 50000"#), "\(summary)")
    }

    /// A watcher that stops reading is closed (1008) once its bounded outbound queue is full; the others go on.
    @Test func aWatcherThatStopsReadingIsDroppedNotBuffered() throws {
        let served = try Served()
        let summary = try served.python("slow.py", timeout: 120)
        #expect(summary.contains(#""dropped": true"#), "\(summary)")
        // `stream serve` says so on its standard output.
        var said = false
        while !said, let line = try? served.process?.readLine(timeout: 5) {
            said = line.contains("closed with 1008: it stopped reading")
        }
        #expect(said, "stream serve did not log the dropped watcher")
    }

    @Test(arguments: [
        (["--shows", "BAD"], "line 3: unknown role 'admin'"),
        (["--shows", "SHOWS"], "--shows needs --token-secret-file"),
        (["--shows", "SHOWS", "--token-secret-file", "OPEN"], "can be read by others (mode 644)"),
        (["--data-dir", "/tmp/x"], "--data-dir needs --shows"),
        (["--shows", "SHOWS", "--token-secret-file", "SECRET", "--no-http"], "drop --no-http"),
        (["--chat-retention", "7"], "--chat-retention needs --shows"),
        (["--store", "postgres://stream@db/shows"], "--store needs --shows"),
        (["--shows", "SHOWS", "--token-secret-file", "SECRET", "--store", "mysql://stream@db/shows"],
         "--store: a PostgreSQL store is a postgres://USER@HOST:PORT/DB URL"),
        (["--shows", "SHOWS", "--token-secret-file", "SECRET", "--store", "postgres://stream:hunter2@db/shows"],
         "--store: the PostgreSQL URL holds a password: leave it out"),
        (["--shows", "SHOWS", "--token-secret-file", "SECRET", "--store-password-file", "SECRET"],
         "--store-password-file needs --store"),
        (["--shows", "SHOWS", "--token-secret-file", "SECRET", "--store", "postgres://stream@db/shows",
          "--store-password-file", "OPEN"], "--store-password-file: "),
        (["--shows", "SHOWS", "--token-secret-file", "SECRET", "--chat-retention", "-1"],
         "--chat-retention -1 is not a number of days from 0 to 36500"),
    ])
    func badShowOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let work = try TemporaryDirectory("live-shows-args")
        try "{\"streams\": [\n  {\"pattern\": \"show:{id}\",\n   \"users\": \"admin\"}]}"
            .write(toFile: work.file("bad.json"), atomically: true, encoding: .utf8)
        try Self.shows.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        for (name, mode) in [("secret", 0o600), ("open", 0o644)] {
            try String(repeating: "s", count: 40).write(toFile: work.file(name), atomically: true, encoding: .utf8)
            #expect(chmod(work.file(name), mode_t(mode)) == 0)
        }
        let files = ["BAD": work.file("bad.json"), "SHOWS": work.file("shows.json"), "OPEN": work.file("open"),
                     "SECRET": work.file("secret")]
        let result = try Subprocess.run(try StreamExecutable.url().path,
                                        ["serve", "--no-record"] + arguments.map { files[$0] ?? $0 }, timeout: 10)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
