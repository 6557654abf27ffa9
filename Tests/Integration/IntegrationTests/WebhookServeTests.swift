import Foundation
import TestSupport
import Testing

/// Issue 33's webhooks as a backend receives them: a real `stream serve --shows --webhook`, ffmpeg publishing a
/// show with its ingest key, and a receiver written with Python's `http.server` that checks every signature with
/// Python's `hmac`.
@Suite(.startsPeers, .serialized) struct WebhookServeTests {
    static let shows = """
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"}]}
        """
    static let webhookSecret = "whsec-9f8e7d6c5b4a39281706f5e4d3c2b1a0"

    /// The receiver: `receiver.py PORT SECRET_FILE LOG FAIL_FIRST` answers the first FAIL_FIRST requests 500 and the
    /// rest 204, and appends one JSON line per request to LOG with whether its signature checked against the secret
    /// SECRET_FILE holds then.
    static let receiver = #"""
        import hashlib, hmac, json, sys, time
        from http.server import BaseHTTPRequestHandler, HTTPServer

        PORT, SECRET_FILE, LOG, FAIL_FIRST = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        seen = {"requests": 0}


        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                SECRET = open(SECRET_FILE, "rb").read().strip()  # read each time: a test rotates it
                timestamp = self.headers["Stream-Timestamp"]
                expected = "v1=" + hmac.new(SECRET, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
                signed = hmac.compare_digest(expected, self.headers["Stream-Signature"] or "")
                fresh = abs(time.time() - int(timestamp)) < 300
                event = json.loads(body)
                seen["requests"] += 1
                status = 500 if seen["requests"] <= FAIL_FIRST else 204
                with open(LOG, "a") as log:
                    log.write(json.dumps({"id": event["id"], "type": event["type"], "stream": event["stream"],
                                          "signed": signed and fresh, "status": status, "event": event,
                                          "idHeader": self.headers["Stream-Webhook-Id"]}) + "\n")
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass


        server = HTTPServer(("127.0.0.1", PORT), Handler)
        print("listening", flush=True)
        server.serve_forever()
        """#

    /// `golive.py BASE TOKEN_SECRET WORK`: the host asks for the ingest key, ffmpeg publishes 3 s, the host bans eve
    /// meanwhile, and the script returns once the show is live and then idle again.
    static let goLive = #"""
        import asyncio, subprocess, sys
        from liveclient import Client, mint

        BASE, SECRET, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]


        async def main():
            ann = await Client(BASE, "show:mugs", mint(SECRET, "ann"), label="ann").open()
            await ann.join()
            ingest = await ann.request("ingest")
            assert ingest["ok"], ingest
            ffmpeg = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re", "-f", "lavfi", "-i",
                                       "testsrc2=size=320x240:rate=15", "-t", "3", "-c:v", "libx264", "-preset",
                                       "ultrafast", "-tune", "zerolatency", "-g", "15", "-f", "flv",
                                       f"{ingest['url']}/{ingest['key']}"],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(f"{WORK}/ffmpeg.log", "w"))
            await ann.wait(lambda c: {"event": "state", "state": "live"} in c.events, timeout=20, what="live")
            assert (await ann.request("ban", user="eve"))["ok"]
            ffmpeg.wait(timeout=20)
            await ann.wait(lambda c: {"event": "state", "state": "idle"} in c.events, timeout=20, what="idle")
            print("done")


        asyncio.run(main())
        """#

    /// The files and ports of one test.
    final class Setup {
        let work: TemporaryDirectory
        let tokenSecret: String
        let webhookSecret: String
        let httpPort: Int
        let rtmpPort: Int
        let hookPort: Int
        private var starts = 0

        init() throws {
            work = try TemporaryDirectory("webhooks")
            tokenSecret = work.file("token-secret")
            webhookSecret = work.file("webhook-secret")
            try "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e\n".write(toFile: tokenSecret, atomically: true,
                                                                          encoding: .utf8)
            try (WebhookServeTests.webhookSecret + "\n").write(toFile: webhookSecret, atomically: true,
                                                                encoding: .utf8)
            #expect(chmod(tokenSecret, 0o600) == 0 && chmod(webhookSecret, 0o600) == 0)
            try WebhookServeTests.shows.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
            for (name, text) in ["liveclient.py": LiveShowPeers.client, "receiver.py": WebhookServeTests.receiver,
                                 "golive.py": WebhookServeTests.goLive] {
                try text.write(toFile: work.file(name), atomically: true, encoding: .utf8)
            }
            (httpPort, rtmpPort, hookPort) = (try FreePort.next(), try FreePort.next(), try FreePort.next())
        }

        /// The receiver on `port` (`hookPort` unless said), answering the first `failFirst` requests 500 and
        /// logging what it gets to `log` in the work directory.
        func receiver(failFirst: Int = 0, port: Int? = nil, log: String = "received.jsonl") throws
            -> BackgroundProcess {
            let process = try BackgroundProcess("python3", [work.file("receiver.py"), "\(port ?? hookPort)",
                                                            webhookSecret, work.file(log), "\(failFirst)"],
                                                errorLog: work.file(log + ".err"))
            #expect(try process.readLine(timeout: 10) == "listening")
            return process
        }

        /// `stream serve` with webhooks to the receiver's port (a query holding a credential, which the log must
        /// not show), or with `--config FILE` giving the webhook settings.
        func serve(config: String? = nil, record: Bool = false) throws -> BackgroundProcess {
            starts += 1
            let recording = record ? ["--record-dir", work.file("recordings")] : ["--no-record"]
            let webhook = config.map { ["--config", $0] } ?? [
                "--webhook", "http://127.0.0.1:\(hookPort)/hooks?key=hidden-credential",
                "--webhook-secret-file", webhookSecret,
            ]
            let process = try BackgroundProcess(try StreamExecutable.url().path, [
                "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)",
                "--shows", work.file("shows.json"), "--token-secret-file", tokenSecret, "--data-dir",
                work.file("data"), "--metrics-listen", "off", "--webrtc-listen", "127.0.0.1:0",
            ] + recording + webhook, environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve-\(starts).err"))
            try FreePort.waitUntilListening(httpPort)
            return process
        }

        /// The show goes live with ffmpeg and ends when ffmpeg stops.
        func goLive() throws {
            let result = try Subprocess.run("python3", [work.file("golive.py"), "ws://127.0.0.1:\(httpPort)",
                                                        tokenSecret, work.path], timeout: 90)
            #expect(result.status == 0, "golive.py: \(result.stderr)")
        }

        /// What the receiver logging to `log` got so far.
        func received(_ log: String = "received.jsonl") -> [[String: Any]] {
            let text = (try? String(contentsOfFile: work.file(log), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// The types the receiver logging to `log` accepted (answered 204), in order.
        func accepted(_ log: String = "received.jsonl") -> [String] {
            received(log).filter { $0["status"] as? Int == 204 }.compactMap { $0["type"] as? String }
        }
    }

    /// Reads the server's standard output until a line contains `text` (so its pipe never fills either).
    static func output(of process: BackgroundProcess, until text: String, within seconds: TimeInterval) -> String {
        var seen = ""
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, let line = try? process.readLine(timeout: deadline.timeIntervalSinceNow) {
            seen += line + "\n"
            if line.contains(text) { break }
        }
        return seen
    }

    @Test func everyEventIsSignedArrivesOnceAndA500IsRetried() async throws {
        let setup = try Setup()
        let receiver = try setup.receiver(failFirst: 1)
        defer { receiver.stop() }
        let serve = try setup.serve()
        defer { serve.stop() }
        try setup.goLive()
        try await eventually("show.ended accepted", within: .seconds(20), every: .milliseconds(50),
                             seen: { "\(setup.received())" }) { setup.accepted().contains("show.ended") }
        let received = setup.received()
        #expect(received.allSatisfy { $0["signed"] as? Bool == true }, "\(received)")
        #expect(received.allSatisfy { $0["idHeader"] as? String == $0["id"] as? String }, "\(received)")
        let accepted = setup.accepted()
        #expect(accepted.filter { $0 == "show.live" }.count == 1, "\(accepted)")
        #expect(accepted.filter { $0 == "show.ended" }.count == 1, "\(accepted)")
        #expect(accepted.filter { $0 == "tile.added" }.count == 1, "\(accepted)")
        #expect(accepted.filter { $0 == "user.banned" }.count == 1, "\(accepted)")
        let banned = try #require(received.last { $0["type"] as? String == "user.banned" }?["event"] as? [String: Any])
        #expect(banned["user"] as? String == "eve" && banned["stream"] as? String == "show:mugs", "\(banned)")
        // The first request was answered 500 and sent again, with the same id.
        let first = try #require(received.first)
        #expect(first["status"] as? Int == 500 && first["type"] as? String == "show.live", "\(received)")
        #expect(received.filter { $0["id"] as? String == first["id"] as? String }.count == 2, "\(received)")
        let ended = try #require(received.last { $0["type"] as? String == "show.ended" }?["event"] as? [String: Any])
        #expect(ended["stream"] as? String == "show:mugs", "\(ended)")
        #expect((ended["duration"] as? Double).map { $0 > 1 && $0 < 30 } == true, "\(ended)")
        #expect(ended["peak_viewers"] as? Int == 0, "\(ended)")
        let log = Self.output(of: serve, until: "never", within: 0.5)
        #expect(log.contains("attempt 1 failed (answered 500)"), "\(log)")
        #expect(!log.contains("hidden-credential") && !log.contains(Self.webhookSecret), "\(log)")
    }

    /// `stream serve reload` re-reads the webhook secret's file: what is sent after is signed with the new secret
    /// (the receiver checks against the file as it is then); a file others can read is refused and changes nothing.
    @Test func aReloadedSecretSignsWhatIsSentAfter() async throws {
        let setup = try Setup()
        let receiver = try setup.receiver()
        defer { receiver.stop() }
        let serve = try setup.serve()
        defer { serve.stop() }
        let reload = { () throws -> Subprocess.Result in
            try Subprocess.run(try StreamExecutable.url().path,
                               ["serve", "reload", "--data-dir", setup.work.file("data")], timeout: 20,
                               environment: TemporaryConfigHome.environment(in: setup.work.path))
        }
        let rotated = "whsec-rotated-0a1b2c3d4e5f60718293a4b5c6d7e8f9"
        try (rotated + "\n").write(toFile: setup.webhookSecret, atomically: true, encoding: .utf8)
        #expect(chmod(setup.webhookSecret, 0o644) == 0)
        let refused = try reload()
        #expect(refused.status == 1 && refused.stdout.contains("webhooks: reload refused"), "\(refused.stdout)")
        #expect(chmod(setup.webhookSecret, 0o600) == 0)
        let reloaded = try reload()
        #expect(reloaded.status == 0 && reloaded.stdout.contains("webhooks: reloaded")
                    && reloaded.stdout.contains("a new secret"), "\(reloaded.stdout)\(reloaded.stderr)")
        try setup.goLive()
        try await eventually("show.ended accepted", within: .seconds(20), every: .milliseconds(50),
                             seen: { "\(setup.received())" }) { setup.accepted().contains("show.ended") }
        let received = setup.received()
        #expect(!received.isEmpty && received.allSatisfy { $0["signed"] as? Bool == true },
                "signed with the rotated secret: \(received)")
        let log = Self.output(of: serve, until: "never", within: 0.5)
        #expect(!log.contains(rotated) && !log.contains(Self.webhookSecret), "\(log)")
    }

    /// With `--config FILE`, a reload re-reads the file: a new webhook URL takes every event from then on; a file
    /// with a mistake is refused with its line and changes nothing; another changed key is named as needing a
    /// restart.
    @Test func aReloadedConfigFileSendsToTheNewURL() async throws {
        let setup = try Setup()
        let otherPort = try FreePort.next()
        let first = try setup.receiver(log: "first.jsonl")
        defer { first.stop() }
        let second = try setup.receiver(port: otherPort, log: "second.jsonl")
        defer { second.stop() }
        let config = setup.work.file("serve.json")
        let write = { (url: String, extra: String) throws in
            try """
                {
                  "webhook": "\(url)",
                  "webhook-secret-file": "\(setup.webhookSecret)",\(extra)
                  "max-connections": 100
                }
                """.write(toFile: config, atomically: true, encoding: .utf8)
        }
        try write("http://127.0.0.1:\(setup.hookPort)/hooks", "")
        let serve = try setup.serve(config: config)
        defer { serve.stop() }
        let reload = { () throws -> Subprocess.Result in
            try Subprocess.run(try StreamExecutable.url().path,
                               ["serve", "reload", "--data-dir", setup.work.file("data")], timeout: 20,
                               environment: TemporaryConfigHome.environment(in: setup.work.path))
        }
        // A key that is no option, then a URL that is not http(s): each refused with its line; nothing changes.
        try write("http://127.0.0.1:\(otherPort)/hooks", #"\#n  "webhok": "x","#)
        let unknown = try reload()
        #expect(unknown.status == 1 && unknown.stdout.contains("config: reload refused")
                    && unknown.stdout.contains("line 4: \"webhok\" is not an option"), "\(unknown.stdout)")
        try write("ftp://127.0.0.1:\(otherPort)/hooks", "")
        let scheme = try reload()
        #expect(scheme.status == 1 && scheme.stdout.contains("--webhook must be an http:// or https:// URL")
                    && scheme.stdout.contains("line 2: \"webhook\""), "\(scheme.stdout)")
        try setup.goLive()
        try await eventually("show.ended at the first URL", within: .seconds(20), every: .milliseconds(50),
                             seen: { "\(setup.received("first.jsonl"))" }) {
            setup.accepted("first.jsonl").contains("show.ended")
        }
        // Now a good file, with another max-connections: the URL applies, max-connections waits for a restart.
        try """
            {"webhook": "http://127.0.0.1:\(otherPort)/hooks", "webhook-secret-file": "\(setup.webhookSecret)",
             "max-connections": 200}
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let reloaded = try reload()
        #expect(reloaded.status == 0 && reloaded.stdout.contains("webhooks go to http://127.0.0.1:\(otherPort)")
                    && reloaded.stdout.contains("applied only by a restart: max-connections"),
                "\(reloaded.stdout)\(reloaded.stderr)")
        let before = setup.received("first.jsonl").count
        try setup.goLive()
        try await eventually("show.ended at the new URL", within: .seconds(20), every: .milliseconds(50),
                             seen: { "\(setup.received("second.jsonl"))" }) {
            setup.accepted("second.jsonl").contains("show.ended")
        }
        let moved = setup.accepted("second.jsonl")
        #expect(moved.filter { $0 == "show.live" }.count == 1 && moved.filter { $0 == "show.ended" }.count == 1,
                "\(moved)")
        #expect(setup.received("second.jsonl").allSatisfy { $0["signed"] as? Bool == true })
        #expect(setup.received("first.jsonl").count == before, "nothing more to the old URL")
    }

    /// With recording on, a publish's file and the show's replay each give a `recording.ready` with its duration;
    /// the replay's names the show and the playlist it plays at, which answers.
    @Test func aFinishedRecordingAndAReplayAreReady() async throws {
        let setup = try Setup()
        let receiver = try setup.receiver()
        defer { receiver.stop() }
        let serve = try setup.serve(record: true)
        defer { serve.stop() }
        try setup.goLive()
        try await eventually("two recording.ready accepted", within: .seconds(20), every: .milliseconds(50),
                             seen: { "\(setup.received())" }) {
            setup.accepted().filter { $0 == "recording.ready" }.count == 2
        }
        let ready = setup.received()
            .filter { $0["type"] as? String == "recording.ready" && $0["status"] as? Int == 204 }
            .compactMap { $0["event"] as? [String: Any] }
        let plain = try #require(ready.first { $0["stream"] is NSNull }, "\(ready)")
        let replay = try #require(ready.first { $0["stream"] as? String == "show:mugs" }, "\(ready)")
        for event in [plain, replay] {
            // ffmpeg published 3 s.
            #expect((event["duration"] as? Double).map { $0 > 2 && $0 < 4.5 } == true, "\(event)")
            #expect((event["bytes"] as? Int).map { $0 > 10_000 } == true, "\(event)")
            let path = try #require(event["path"] as? String)
            #expect(path.hasPrefix(setup.work.file("recordings")) && FileManager.default.fileExists(atPath: path),
                    "\(event)")
        }
        let id = try #require(replay["replay"] as? String)
        let playlist = try #require(replay["playlist"] as? String)
        #expect(playlist == "/v1/streams/show:mugs/recordings/\(id).m3u8"
                    && (replay["path"] as? String)?.hasSuffix("/replays/show%3Amugs/\(id).mp4") == true, "\(replay)")
        let fetched = try Subprocess.run("curl", ["-s", "-f", "http://127.0.0.1:\(setup.httpPort)\(playlist)"],
                                         timeout: 10)
        #expect(fetched.status == 0 && fetched.stdout.contains("#EXT-X-ENDLIST"), "\(fetched.stdout)")
    }

    @Test func eventsQueuedWhenTheServerIsKilledArriveAfterARestart() async throws {
        let setup = try Setup()
        let serve = try setup.serve()
        defer { serve.stop() }
        try setup.goLive()
        // With the receiver down the first event fails and waits; the end is queued (on disk) behind it. SIGKILL.
        let log = Self.output(of: serve, until: "attempt 1 failed", within: 20)
        #expect(log.contains("webhooks: show.live"), "\(log)")
        let queue = setup.work.file("data/webhooks.queue")
        try await eventually("show.ended in the queue file", within: .seconds(10), seen: { "\(log)" }) {
            ((try? String(contentsOfFile: queue, encoding: .utf8)) ?? "").contains(#""type":"show.ended""#)
        }
        serve.crash()
        let receiver = try setup.receiver()
        defer { receiver.stop() }
        let again = try setup.serve()
        defer { again.stop() }
        let restarted = Self.output(of: again, until: "queued before the last stop", within: 10)
        #expect(restarted.contains("5 events queued before the last stop"), "\(restarted)")
        try await eventually("the queued events accepted", within: .seconds(20), every: .milliseconds(50),
                             seen: { "\(setup.received())" }) { setup.accepted().contains("show.ended") }
        let accepted = setup.accepted()
        #expect(Array(accepted.prefix(2)) == ["show.live", "tile.added"], "\(accepted)")
        #expect(accepted.filter { $0 == "show.ended" }.count == 1, "\(accepted)")
        #expect(setup.received().allSatisfy { $0["signed"] as? Bool == true })
    }

    @Test func aSecretOthersCanReadIsAUsageError() throws {
        let setup = try Setup()
        #expect(chmod(setup.webhookSecret, 0o644) == 0)
        let result = try Subprocess.run(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:\(setup.rtmpPort)", "--http-listen", "127.0.0.1:\(setup.httpPort)",
            "--no-record", "--shows", setup.work.file("shows.json"), "--token-secret-file", setup.tokenSecret,
            "--data-dir", setup.work.file("data"), "--webhook", "http://127.0.0.1:\(setup.hookPort)/",
            "--webhook-secret-file", setup.webhookSecret,
        ], timeout: 20)
        #expect(result.status == 2, "\(result.status): \(result.stderr)")
        #expect(result.stderr.contains("can be read by others") && result.stderr.contains("chmod 600"),
                "\(result.stderr)")
        #expect(!result.stderr.contains(Self.webhookSecret))
    }
}
