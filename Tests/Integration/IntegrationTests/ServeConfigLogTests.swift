import Foundation
import TestSupport
import Testing

/// `stream serve --config FILE --log-format json`: a real server configured by a file (port 0 everywhere), an ffmpeg
/// publish, and every line it prints read back by Python's `json`.
@Suite(.startsPeers) struct ServeConfigLogTests {
    /// `check.py LOG`: every line is a JSON object with the four members and their types; prints the events in order.
    static let checker = #"""
        import json, re, sys

        events = []
        with open(sys.argv[1], encoding="utf-8") as log:
            for number, line in enumerate(log, 1):
                value = json.loads(line)
                assert isinstance(value, dict), (number, line)
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", value["time"]), (number, line)
                assert value["level"] in ("info", "warning", "error"), (number, line)
                assert isinstance(value["event"], str) and value["event"], (number, line)
                assert isinstance(value["message"], str), (number, line)
                events.append(value["event"])
        print(" ".join(events))
        """#

    /// Reads the server's standard output until a line contains `text`.
    static func output(of process: BackgroundProcess, until text: String, within seconds: TimeInterval) -> [String] {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, let line = try? process.readLine(timeout: deadline.timeIntervalSinceNow) {
            seen.append(line)
            if line.contains(text) { break }
        }
        return seen
    }

    @Test func everyLineIsJSONAndThePublishIsInIt() throws {
        let work = try TemporaryDirectory("serve-config-log")
        let key = "sk-live-" + UUID().uuidString.lowercased()
        try "\(key)\n".write(toFile: work.file("keys"), atomically: true, encoding: .utf8)
        let config = """
            {
              "listen": "127.0.0.1:0",
              "http-listen": "127.0.0.1:0",
              "webrtc-listen": "127.0.0.1:0",
              "metrics-listen": "off",
              "record-dir": "\(work.file("recordings"))",
              "keys-file": "\(work.file("keys"))",
              "max-connections": 16
            }
            """
        try config.write(toFile: work.file("serve.json"), atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(try StreamExecutable.url().path, [
            "serve", "--config", work.file("serve.json"), "--log-format", "json",
        ], environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve.err"))
        defer { serve.stop() }
        var lines = Self.output(of: serve, until: "Recordings go to", within: 20)
        let publishTo = try #require(lines.first { $0.contains("Publish to rtmp://127.0.0.1:") }, "\(lines)")
        let port = try #require(publishTo.split(separator: ":").compactMap { field in
            Int(field.prefix { $0.isNumber })
        }.last { $0 > 0 }, "\(publishTo)")

        let ffmpeg = try Subprocess.run("ffmpeg", [
            "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "2",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/\(key)",
        ], timeout: 30)
        #expect(ffmpeg.status == 0, "\(ffmpeg)")
        lines += Self.output(of: serve, until: "recording finished", within: 20)
        #expect(kill(serve.pid, SIGTERM) == 0)
        lines += Self.output(of: serve, until: "\"stopped\"", within: 20)
        #expect(serve.waitForExit(timeout: 10) == 0)

        let log = lines.joined(separator: "\n") + "\n"
        try log.write(toFile: work.file("serve.log"), atomically: true, encoding: .utf8)
        try Self.checker.write(toFile: work.file("check.py"), atomically: true, encoding: .utf8)
        let checked = try Subprocess.run("python3", [work.file("check.py"), work.file("serve.log")], timeout: 30)
        #expect(checked.status == 0, "\(checked)\n\(log)")
        let events = checked.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        for event in ["listening", "publish_started", "recording_started", "hls_address", "publish_stopped",
                      "recording_finished", "stopped"] {
            #expect(events.contains(event), "\(event) missing from \(events)")
        }
        #expect(log.contains("\"app\":\"live\""), "\(log)")
        let errors = (try? String(contentsOfFile: work.file("serve.err"), encoding: .utf8)) ?? ""
        #expect(!log.contains(key) && !errors.contains(key), "the stream key was printed")
        #expect(!log.contains(String(key.suffix(12))), "part of the stream key was printed")
    }

    /// `joiner.py BASE SECRET_FILE`: bob joins show:mugs with a token minted from the secret, sends a message,
    /// prints his access token and every token the welcome gave him (one a line), then leaves.
    static let joiner = #"""
        import asyncio, sys
        from liveclient import Client, mint

        BASE, SECRET = sys.argv[1], open(sys.argv[2]).read().strip()


        async def main():
            token = mint(SECRET, "bob")
            bob = await Client(BASE, "show:mugs", token, label="bob").open()
            reply = await bob.join()
            assert reply["ok"], reply
            assert (await bob.request("send", text="hello"))["ok"]
            print(token)
            for name, value in reply.items():
                if "token" in name.lower() and isinstance(value, str):
                    print(value)
            await bob.close()


        asyncio.run(main())
        """#

    @Test func aShowsTokensAndSecretAreNotInTheJSONLog() throws {
        let work = try TemporaryDirectory("serve-config-log-shows")
        let secret = "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e"
        try "\(secret)\n".write(toFile: work.file("token-secret"), atomically: true, encoding: .utf8)
        #expect(chmod(work.file("token-secret"), 0o600) == 0)
        try #"{"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"}]}"#
            .write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        try LiveShowPeers.client.write(toFile: work.file("liveclient.py"), atomically: true, encoding: .utf8)
        try Self.joiner.write(toFile: work.file("joiner.py"), atomically: true, encoding: .utf8)
        let httpPort = try FreePort.next()
        let config = """
            {
              "listen": "127.0.0.1:0",
              "http-listen": "127.0.0.1:\(httpPort)",
              "webrtc-listen": "127.0.0.1:0",
              "metrics-listen": "off",
              "no-record": true,
              "shows": "\(work.file("shows.json"))",
              "token-secret-file": "\(work.file("token-secret"))",
              "data-dir": "\(work.file("data"))",
              "log-format": "json"
            }
            """
        try config.write(toFile: work.file("serve.json"), atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(try StreamExecutable.url().path,
                                          ["serve", "--config", work.file("serve.json")],
                                          environment: TemporaryConfigHome.environment(in: work.path),
                                          errorLog: work.file("serve.err"))
        defer { serve.stop() }
        var lines = Self.output(of: serve, until: "Not recording", within: 20)
        let joined = try Subprocess.run("python3", [work.file("joiner.py"), "ws://127.0.0.1:\(httpPort)",
                                                    work.file("token-secret")], timeout: 30)
        #expect(joined.status == 0, "\(joined)")
        let tokens = joined.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        #expect(!tokens.isEmpty)
        #expect(kill(serve.pid, SIGTERM) == 0)
        lines += Self.output(of: serve, until: "\"stopped\"", within: 20)
        #expect(serve.waitForExit(timeout: 10) == 0)

        let log = lines.joined(separator: "\n") + "\n"
        try log.write(toFile: work.file("serve.log"), atomically: true, encoding: .utf8)
        try Self.checker.write(toFile: work.file("check.py"), atomically: true, encoding: .utf8)
        let checked = try Subprocess.run("python3", [work.file("check.py"), work.file("serve.log")], timeout: 30)
        #expect(checked.status == 0, "\(checked)\n\(log)")
        #expect(log.contains("Live shows at /v1/streams/NAME"), "\(log)")
        let errors = (try? String(contentsOfFile: work.file("serve.err"), encoding: .utf8)) ?? ""
        for secretText in tokens + [secret] {
            #expect(!log.contains(secretText) && !errors.contains(secretText), "a token or the secret was printed")
        }
    }
}
