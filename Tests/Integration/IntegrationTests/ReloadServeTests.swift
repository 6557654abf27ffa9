import Foundation
import TestSupport
import Testing

/// SIGHUP re-reads `stream serve`'s shows and keys files: a real server, `curl` asking for a show card, a Python
/// `websockets` watcher and an ffmpeg publisher that must stay connected through every reload.
@Suite(.startsPeers) struct ReloadServeTests {
    static let before = """
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"}]}
        """
    static let after = """
        {"streams": [
          {"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"},
          {"pattern": "talk:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"}
        ]}
        """
    /// Line 3 is not JSON.
    static let broken = """
        {"streams": [
          {"pattern": "show:{id}", "hosts": ["ann"]},
          {"pattern": "gone:{id}" "hosts": ["ann"]}
        ]}
        """

    /// `watcher.py BASE TOKEN_SECRET DONE_FILE`: bob joins show:mugs, prints "joined", waits for DONE_FILE (at most
    /// 60 s), then sends a chat message on the same WebSocket and prints "still connected".
    static let watcher = #"""
        import asyncio, os, sys
        from liveclient import Client, mint

        BASE, SECRET, DONE = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]


        async def main():
            bob = await Client(BASE, "show:mugs", mint(SECRET, "bob"), label="bob").open()
            await bob.join()
            print("joined", flush=True)
            for _ in range(600):
                if os.path.exists(DONE):
                    break
                await asyncio.sleep(0.1)
            else:
                raise SystemExit("the test never finished")
            reply = await bob.request("send", text="after the reloads")
            assert reply["ok"], reply
            print("still connected", flush=True)


        asyncio.run(main())
        """#

    /// The status code of the show card of `name`.
    static func card(_ port: Int, _ name: String) throws -> String {
        try Subprocess.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}",
                                    "http://127.0.0.1:\(port)/v1/streams/\(name)"]).stdout
    }

    /// Reads the server's standard output until a line contains `text`.
    static func output(of process: BackgroundProcess, until text: String, within seconds: TimeInterval) -> String {
        var seen = ""
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, let line = try? process.readLine(timeout: deadline.timeIntervalSinceNow) {
            seen += line + "\n"
            if line.contains(text) { break }
        }
        return seen
    }

    @Test func aNewPatternServesAtOnceAndABrokenFileChangesNothing() throws {
        let work = try TemporaryDirectory("reload")
        let secretFile = work.file("token-secret")
        try "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e\n".write(toFile: secretFile, atomically: true,
                                                                      encoding: .utf8)
        #expect(chmod(secretFile, 0o600) == 0)
        let showsFile = work.file("shows.json")
        try Self.before.write(toFile: showsFile, atomically: true, encoding: .utf8)
        try LiveShowPeers.client.write(toFile: work.file("liveclient.py"), atomically: true, encoding: .utf8)
        try Self.watcher.write(toFile: work.file("watcher.py"), atomically: true, encoding: .utf8)
        let (httpPort, rtmpPort) = (try FreePort.next(), try FreePort.next())
        let serve = try BackgroundProcess(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            "--shows", showsFile, "--token-secret-file", secretFile, "--data-dir", work.file("data"),
            "--metrics-listen", "off", "--webrtc-listen", "127.0.0.1:0",
        ], environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve.err"))
        defer { serve.stop() }
        try FreePort.waitUntilListening(httpPort)
        _ = Self.output(of: serve, until: "Not recording", within: 10)
        let watcher = try BackgroundProcess("python3", [work.file("watcher.py"), "ws://127.0.0.1:\(httpPort)",
                                                        secretFile, work.file("done")],
                                            errorLog: work.file("watcher.err"))
        defer { watcher.stop() }
        #expect(try watcher.readLine(timeout: 20) == "joined")
        #expect(try Self.card(httpPort, "talk:x") == "404")

        try Self.after.write(toFile: showsFile, atomically: true, encoding: .utf8)
        #expect(kill(serve.pid, SIGHUP) == 0)
        let reloaded = Self.output(of: serve, until: "shows: reload", within: 10)
        #expect(reloaded.contains("shows: reloaded \(showsFile): 2 patterns"), "\(reloaded)")
        #expect(try Self.card(httpPort, "talk:x") == "200")

        // `stream serve reload` finds the server by its data directory and prints what it said: the broken file is
        // refused with its line (exit 1), the fixed one reloaded (exit 0).
        let home = TemporaryConfigHome.environment(in: work.path)
        let command = ["serve", "reload", "--data-dir", work.file("data")]
        try Self.broken.write(toFile: showsFile, atomically: true, encoding: .utf8)
        let refused = try Subprocess.run(try StreamExecutable.url().path, command, timeout: 20, environment: home)
        #expect(refused.status == 1 && refused.stdout.contains("shows: reload refused")
                    && refused.stdout.contains("line 3"), "\(refused.stdout)\(refused.stderr)")
        #expect(Self.output(of: serve, until: "shows: reload", within: 10).contains("line 3"), "the log says it too")
        #expect(try Self.card(httpPort, "talk:x") == "200", "the declarations in force stay")
        #expect(try Self.card(httpPort, "gone:x") == "404")
        try Self.after.write(toFile: showsFile, atomically: true, encoding: .utf8)
        let fixed = try Subprocess.run(try StreamExecutable.url().path, command, timeout: 20, environment: home)
        #expect(fixed.status == 0 && fixed.stdout == "shows: reloaded \(showsFile): 2 patterns\n",
                "\(fixed.stdout)\(fixed.stderr)")
        // Another data directory has no server: said, exit 1.
        let nobody = try Subprocess.run(try StreamExecutable.url().path,
                                        ["serve", "reload", "--data-dir", work.file("elsewhere")], timeout: 20,
                                        environment: home)
        #expect(nobody.status == 1 && nobody.stderr.contains("no stream serve is running"), "\(nobody.stderr)")
        #expect(try Subprocess.run(try StreamExecutable.url().path, command + ["--shows", "x"], timeout: 20,
                                   environment: home).status == 2, "reload takes only --data-dir or --config")

        #expect(FileManager.default.createFile(atPath: work.file("done"), contents: Data()))
        #expect(try watcher.readLine(timeout: 20) == "still connected",
                "\((try? String(contentsOfFile: work.file("watcher.err"), encoding: .utf8)) ?? "")")
        #expect(serve.isRunning)
        serve.stop()
        #expect(!FileManager.default.fileExists(atPath: work.file("data/serve.pid")), "the pid file goes with it")
    }

    /// ffmpeg's arguments to publish a small test picture for `seconds` to `url`.
    static func publish(_ url: String, seconds: Int) -> [String] {
        ["-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t",
         "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-f", "flv", url]
    }

    @Test func aReloadedKeysFileAllowsItsKeysAndKeepsPublishersOn() throws {
        let work = try TemporaryDirectory("reload-keys")
        let keysFile = work.file("keys")
        try "alpha\n".write(toFile: keysFile, atomically: true, encoding: .utf8)
        let (httpPort, rtmpPort) = (try FreePort.next(), try FreePort.next())
        let serve = try BackgroundProcess(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            "--keys-file", keysFile, "--metrics-listen", "off", "--webrtc-listen", "127.0.0.1:0",
        ], environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve.err"))
        defer { serve.stop() }
        try FreePort.waitUntilListening(rtmpPort)
        let base = "rtmp://127.0.0.1:\(rtmpPort)/live/"
        #expect(try Subprocess.run("ffmpeg", Self.publish(base + "beta", seconds: 2), timeout: 30).status != 0)
        // alpha publishes through the reloads, beta's key is added.
        let alpha = try BackgroundProcess("ffmpeg", Self.publish(base + "alpha", seconds: 6),
                                          errorLog: work.file("alpha.err"))
        _ = Self.output(of: serve, until: "publish started", within: 10)
        try "beta\n".write(toFile: keysFile, atomically: true, encoding: .utf8)
        #expect(kill(serve.pid, SIGHUP) == 0)
        let reloaded = Self.output(of: serve, until: "keys: reload", within: 10)
        #expect(reloaded.contains("keys: reloaded \(keysFile): 1 key"), "\(reloaded)")
        try "# nothing\n".write(toFile: keysFile, atomically: true, encoding: .utf8)
        #expect(kill(serve.pid, SIGHUP) == 0)
        let refused = Self.output(of: serve, until: "keys: reload", within: 10)
        #expect(refused.contains("keys: reload refused") && refused.contains("holds no key"), "\(refused)")
        #expect(try Subprocess.run("ffmpeg", Self.publish(base + "beta", seconds: 2), timeout: 30).status == 0)
        #expect(alpha.waitForExit(timeout: 30) == 0, "alpha was cut")
        #expect(serve.isRunning)
    }
}
