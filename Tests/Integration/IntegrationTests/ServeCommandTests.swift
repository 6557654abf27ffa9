import Foundation
import TestSupport
import Testing

/// `stream serve` as a user runs it: the real executable, ffmpeg publishing to it.
@Suite(.serialized) struct ServeCommandTests {
    @Test func serveRecordsAPublishAndNeverPrintsTheKey() async throws {
        let work = try TemporaryDirectory("serve")
        let records = work.file("records")
        let keys = work.file("keys.txt")
        try "# allowed keys\nsuper-secret-serve-key\n".write(toFile: keys, atomically: true, encoding: .utf8)
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 2)
        let port = try FreePort.next()

        // Started at once on a thread of its own (an async let's child task may wait seconds for a pool thread).
        let served = OffPoolTask("stream-serve") {
            try Subprocess.run(try StreamExecutable.url().path, [
                "serve", "--listen", "127.0.0.1:\(port)", "--no-http", "--record-dir", records, "--keys-file", keys,
                "--duration", "8",
            ], timeout: 20, environment: TemporaryConfigHome.environment(in: work.path))
        }
        try FreePort.waitUntilListening(port)
        let push = try Subprocess.run("ffmpeg", [
            "-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv",
            "rtmp://127.0.0.1:\(port)/live/super-secret-serve-key",
        ], timeout: 20)
        let output = try await served.value

        #expect(push.status == 0, "\(push.stderr)")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Publish to rtmp://127.0.0.1:\(port)/live"))
        #expect(output.stdout.contains("Recordings go to \(records)"))
        #expect(output.stdout.contains("publish started: live/#"))
        #expect(!(output.stdout + output.stderr).contains("super-secret-serve-key"))
        let files = try FileManager.default.contentsOfDirectory(atPath: records).filter { $0.hasSuffix(".flv") }
        let recording = try #require(files.first)
        #expect(!recording.contains("super-secret-serve-key"))
        #expect(try ProbeReport.probe("\(records)/\(recording)").video?.frameCount == 60)
    }

    @Test(arguments: [
        (["serve", "--listen", "nonsense"], "--listen must be HOST:PORT"),
        (["serve", "--listen", "127.0.0.1:70000"], "the port must be a number"),
        (["serve", "--tls-listen", "127.0.0.1:0"], "--tls-listen needs --tls-cert"),
        (["serve", "--keys-file", "/nonexistent/keys"], "cannot read the keys file"),
        (["serve", "--duration", "-1"], "--duration must be a positive number"),
        (["serve", "extra"], "serve"),
    ])
    func badArgumentsExitWithUsageErrors(arguments: [String], message: String) throws {
        let home = try TemporaryConfigHome()
        let result = try Subprocess.run(try StreamExecutable.url().path, arguments, timeout: 10,
                                        environment: home.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// Issue 34 G: a data directory the server cannot write (sysfs refuses even root: a directory that cannot be
    /// made, one that exists but takes no file) stops `stream serve --shows` with a sentence naming the path and
    /// the system's words, exit status 1, never a Foundation error dump.
    @Test(arguments: [
        ("/sys/kernel/stream-test-data", "cannot create the data directory /sys/kernel/stream-test-data"),
        ("/sys/kernel", "cannot create /sys/kernel/stream.lock"),
    ])
    func aDataDirectoryThatCannotBeWrittenIsSaidInWords(directory: String, message: String) throws {
        let work = try TemporaryDirectory("serve-data-dir")
        let secret = work.file("secret")
        try "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978\n".write(toFile: secret, atomically: true,
                                                                      encoding: .utf8)
        #expect(chmod(secret, 0o600) == 0)
        let shows = work.file("shows.json")
        try #"{"streams": [{"pattern": "show:{id}", "hosts": ["ann"]}]}"#.write(toFile: shows, atomically: true,
                                                                              encoding: .utf8)
        let home = try TemporaryConfigHome()
        let result = try Subprocess.run(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--no-record", "--shows", shows,
            "--token-secret-file", secret, "--data-dir", directory,
        ], timeout: 20, environment: home.environment)
        #expect(result.status == 1, "\(result.stderr)")
        let said = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(said.hasPrefix("stream: cannot open the shows' store in \(directory): \(message): "), "\(said)")
        #expect(!result.stderr.contains("Error Domain") && !result.stderr.contains("CocoaError"), "\(result.stderr)")
    }
}
