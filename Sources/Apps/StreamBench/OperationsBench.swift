#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Identity
import Posters

/// Item 18: what running `stream serve` for real costs (issue 33's "Measured"): the server's CPU under 200
/// `/metrics` scrapes a second (beside nginx serving a file of the same size at the same rate, and beside 404s on
/// the HTTP port, the HTTP server's own floor), under 50 webhook events a second (bans by the host, with and without
/// `--webhook`: the difference is the webhooks'), and a poster's cost at 720p: decode + JPEG in this process beside
/// ffmpeg's, then over HTTP, the first request, one after the 10 s refresh and the cached ones.
///
/// The load comes from Python (`http.client`, `websockets`) in processes of its own; only the server's CPU is read
/// (its threads' run times over the window, less an idle window's).
struct OperationsBench {
    let context: BenchContext
    static let section = "18 operations"
    static let scrapesPerSecond = 200.0
    static let eventsPerSecond = 50.0
    static let cachedPosterRequests = 200

    /// The load: `pace HOST PORT PATH RATE SECONDS` (GETs over one keep-alive connection at a fixed rate),
    /// `poster HOST PORT PATH COUNT` (waits for a 200, then COUNT more), `host WS TOKEN_FILE ingest|bans RATE
    /// SECONDS` (a show's host over the live protocol), `receiver PORT LOG` (a webhook receiver answering 204).
    static let script = #"""
        import asyncio, http.client, json, sys, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


        def get(connection, path):
            started = time.monotonic()
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            return response.status, body, (time.monotonic() - started) * 1000


        def median(values):
            values = sorted(values)
            return values[len(values) // 2] if values else None


        def pace(host, port, path, rate, seconds):
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            rate, seconds = float(rate), float(seconds)
            start, sent, statuses, times, size = time.monotonic(), 0, {}, [], 0
            while sent / rate < seconds:
                delay = start + sent / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                status, body, elapsed = get(connection, path)
                statuses[str(status)] = statuses.get(str(status), 0) + 1
                times.append(elapsed)
                size, sent = len(body), sent + 1
            print(json.dumps({"sent": sent, "statuses": statuses, "p50_ms": median(times), "bytes": size}))


        def poster(host, port, path, count):
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            deadline = time.monotonic() + 30
            while True:
                status, body, first = get(connection, path)
                if status == 200:
                    break
                if time.monotonic() > deadline:
                    sys.exit(f"no poster within 30 s: {status} {body[:200]}")
                time.sleep(0.05)
            cached = [get(connection, path)[2] for _ in range(int(count))]
            time.sleep(10.5)
            status, _, refreshed = get(connection, path)
            print(json.dumps({"first_ms": first, "cached_p50_ms": median(cached), "refreshed_ms": refreshed,
                              "refreshed_status": status, "bytes": len(body)}))


        async def session(url, token):
            """A joined host session: (send, reply, close)."""
            from websockets.asyncio.client import connect
            ws = await connect(f"{url}?access_token={token}", proxy=None, compression=None)
            state = {"next": 1, "replies": {}}

            async def read():
                async for text in ws:
                    message = json.loads(text)
                    if "reply" in message:
                        state["replies"][message["reply"]] = message

            reader = asyncio.create_task(read())

            async def send(op, **fields):
                ask = state["next"]
                state["next"] += 1
                await ws.send(json.dumps({"op": op, "id": ask, **fields}))
                return ask

            async def reply(ask, timeout=10):
                deadline = time.monotonic() + timeout
                while ask not in state["replies"] and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
                return state["replies"].get(ask, {"ok": False, "error": "no reply"})

            async def close():
                reader.cancel()
                await ws.close()

            joined = await reply(await send("join"))
            assert joined.get("ok"), joined
            return send, reply, close


        async def host(url, token_file, action, *rest):
            tokens = open(token_file).read().split()
            token = tokens[0]
            if action == "ingest":
                send, reply, close = await session(url, token)
                answer = await reply(await send("ingest"))
                assert answer.get("ok"), answer
                print(json.dumps({"url": answer["url"], "key": answer["key"]}))
                await close()
                return
            # Bans from ten hosts in turn: each stays under a user's 10 requests a second.
            rate, seconds = float(rest[0]), float(rest[1])
            sessions = [await session(url, each) for each in tokens]
            start, asks = time.monotonic(), []
            while len(asks) / rate < seconds:
                delay = start + len(asks) / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                send, reply, _ = sessions[len(asks) % len(sessions)]
                asks.append((reply, await send("ban", user=f"user{len(asks)}")))
            answers = [await reply(ask) for reply, ask in asks]
            failed = [a for a in answers if not a.get("ok")]
            print(json.dumps({"sent": len(asks), "ok": len(asks) - len(failed), "failed": failed[:3]}))
            for _, _, close in sessions:
                await close()


        def receiver(port, log):
            class Handler(BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"  # keeps the connection, as a backend does

                def do_POST(self):
                    self.rfile.read(int(self.headers["Content-Length"]))
                    with open(log, "a") as out:
                        out.write("1\n")
                    self.send_response(204)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

                def log_message(self, *args):
                    pass

            ThreadingHTTPServer(("127.0.0.1", int(port)), Handler).serve_forever()


        mode, arguments = sys.argv[1], sys.argv[2:]
        if mode == "host":
            asyncio.run(host(*arguments))
        else:
            {"pace": pace, "poster": poster, "receiver": receiver}[mode](*arguments)
        """#

    /// One `stream serve --shows` with metrics, with or without webhooks.
    final class Server {
        let child: ChildProcess
        let httpPort: Int
        let rtmpPort: Int
        let metricsPort: Int

        init(_ context: BenchContext, name: String, files: Files, webhookPort: Int?) throws {
            (httpPort, rtmpPort, metricsPort) = (try Loopback.freePort(), try Loopback.freePort(),
                                                 try Loopback.freePort())
            let webhook = webhookPort.map {
                ["--webhook", "http://127.0.0.1:\($0)/hooks", "--webhook-secret-file", files.webhookSecret]
            } ?? []
            child = try ChildProcess(context.streamExecutable, [
                "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
                "--shows", files.shows, "--token-secret-file", files.tokenSecret,
                "--data-dir", context.file("\(name)-data-\(Int(Date().timeIntervalSince1970))"),
                "--metrics-listen", "127.0.0.1:\(metricsPort)", "--webrtc-listen", "127.0.0.1:0",
            ] + webhook, logFile: context.file("\(name).log"), environment: ["XDG_CONFIG_HOME": context.file("xdg")])
            do {
                try ChildProcess.waitUntilListening(httpPort)
                try ChildProcess.waitUntilListening(metricsPort)
            } catch {
                child.stop(SIGKILL)
                throw BenchError("stream serve did not start: \(child.logTail())")
            }
        }

        /// The server's share of a core, in %, while `body` runs.
        func cpuPercent(while body: () throws -> Void) rethrows -> Double {
            try OperationsBench.cpuPercent(of: child.pid, while: body)
        }
    }

    /// The share of a core, in %, that the process tree of `pid` used while `body` ran.
    static func cpuPercent(of pid: pid_t, while body: () throws -> Void) rethrows -> Double {
        let (cpu, wall) = (ProcessTree.serverCPUSeconds(root: pid), Measure.now())
        try body()
        return (ProcessTree.serverCPUSeconds(root: pid) - cpu) / (Measure.now() - wall) * 100
    }

    /// The files the servers and the load share.
    struct Files {
        let script: String
        let shows: String
        let tokenSecret: String
        let webhookSecret: String
        let hostToken: String
    }

    func run(into report: Report) throws {
        let seconds = context.quick ? 5.0 : 10.0
        let files = try makeFiles()
        let receiverPort = try Loopback.freePort()
        let received = context.file("ops-received.log")
        try? FileManager.default.removeItem(atPath: received)
        let receiver = try ChildProcess("python3", [files.script, "receiver", "\(receiverPort)", received],
                                        logFile: context.file("ops-receiver.log"))
        defer { receiver.stop(SIGKILL) }
        try ChildProcess.waitUntilListening(receiverPort)

        let hooked = try Server(context, name: "ops-serve-webhooks", files: files, webhookPort: receiverPort)
        defer { hooked.child.stop(SIGINT) }
        usleep(1_000_000)  // start-up settles
        let idle = hooked.cpuPercent { usleep(useconds_t(seconds * 1e6)) }
        var scrape: [String: Any] = [:]
        let scraping = try hooked.cpuPercent {
            scrape = try pace(port: hooked.metricsPort, path: "/metrics", rate: Self.scrapesPerSecond, seconds)
        }
        let missing = try hooked.cpuPercent {
            _ = try pace(port: hooked.httpPort, path: "/no-such-page", rate: Self.scrapesPerSecond, seconds)
        }
        var bans: [String: Any] = [:]
        let banning = try hooked.cpuPercent {
            bans = try host(hooked, "bans", "\(Self.eventsPerSecond)", "\(seconds)")
        }
        let sent = bans["ok"] as? Int ?? 0
        let deadline = Measure.now() + 20
        while deliveries(received) < sent && Measure.now() < deadline { usleep(100_000) }
        let delivered = deliveries(received)
        hooked.child.stop(SIGINT)

        let plain = try Server(context, name: "ops-serve", files: files, webhookPort: nil)
        defer { plain.child.stop(SIGINT) }
        usleep(1_000_000)
        let plainIdle = plain.cpuPercent { usleep(useconds_t(seconds * 1e6)) }
        let plainBanning = try plain.cpuPercent {
            _ = try host(plain, "bans", "\(Self.eventsPerSecond)", "\(seconds)")
        }
        plain.child.stop(SIGINT)

        // nginx serving a file as large as the scrape's body, at the same rate.
        let size = scrape["bytes"] as? Int ?? 4096
        let root = context.file("ops-nginx-root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try String(repeating: "# metric 1\n", count: size / 11 + 1).prefix(size)
            .write(toFile: "\(root)/metrics.txt", atomically: true, encoding: .utf8)
        let nginx = try NginxStaticServer(directory: context.file("ops-nginx"), root: root, sendfile: false)
        defer { nginx.stop() }
        let nginxCPU = try Self.cpuPercent(of: nginx.child.pid) {
            _ = try pace(port: nginx.port, path: "/files/metrics.txt", rate: Self.scrapesPerSecond, seconds)
        }
        nginx.stop()

        let section = Self.section
        let rate = Int(Self.scrapesPerSecond)
        report.record(section, "server CPU at \(rate) /metrics scrapes/s, over idle", unit: "%",
                      ours: max(0, scraping - idle), peer: nginxCPU, peerName: "nginx, same-size file",
                      note: "\(scrape["sent"] ?? 0) scrapes of \(size) bytes in \(Int(seconds)) s over one keep-alive "
                        + "connection (Python), statuses \(scrape["statuses"] ?? [:]), p50 "
                        + "\(Report.format(scrape["p50_ms"] as? Double)) ms; idle \(Report.format(idle)) %")
        report.record(section, "server CPU at \(rate) 404s/s on the HTTP port, over idle", unit: "%",
                      ours: max(0, missing - idle), note: "the HTTP server's own cost per request, for comparison")
        report.record(section, "webhooks' CPU at \(Int(Self.eventsPerSecond)) events/s", unit: "%",
                      ours: max(0, (banning - idle) - (plainBanning - plainIdle)),
                      note: "bans by the host at \(Int(Self.eventsPerSecond))/s: \(Report.format(banning - idle)) % "
                        + "with --webhook, \(Report.format(plainBanning - plainIdle)) % without; \(delivered) of "
                        + "\(sent) bans committed (\(bans["sent"] ?? 0) sent) delivered to the receiver")

        let server = try Server(context, name: "ops-serve-posters", files: files, webhookPort: nil)
        defer { server.child.stop(SIGINT) }
        try posters(server, into: report)
    }

    /// Poster figures on a live show: the cached FLV published with its key, then HTTP; and the decode in-process.
    private func posters(_ server: Server, into report: Report) throws {
        let flv = try context.encodedFLV(seconds: 40, kbps: 2500)
        let endpoint = try host(server, "ingest")
        guard let url = endpoint["url"] as? String, let key = endpoint["key"] as? String else {
            throw BenchError("no ingest endpoint: \(endpoint)")
        }
        let ffmpeg = try ChildProcess("ffmpeg", ["-nostdin", "-loglevel", "warning", "-re", "-i", flv, "-c", "copy",
                                                 "-f", "flv", "\(url)/\(key)"],
                                      logFile: context.file("ops-ffmpeg.log"))
        defer { ffmpeg.stop(SIGKILL) }
        let poster = try python(["poster", "127.0.0.1", "\(server.httpPort)", "/v1/streams/show:ops/poster.jpg",
                                 "\(Self.cachedPosterRequests)"], log: "ops-poster.log")
        ffmpeg.stop(SIGKILL)

        // The same decode in this process, and ffmpeg's decode + JPEG of the same keyframe.
        let keyframe = context.file("ops-keyframe.h264")
        try ChildProcess.run("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", flv, "-frames:v", "1", "-c:v",
                                        "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", keyframe],
                             logFile: context.file("ops-keyframe.log"))
        let annexB = Array(try Data(contentsOf: URL(fileURLWithPath: keyframe)))
        _ = try PosterRenderer.render(annexB: annexB)  // loads the libraries
        var ours: [Double] = []
        for _ in 0..<20 {
            let started = Measure.now()
            _ = try PosterRenderer.render(annexB: annexB)
            ours.append((Measure.now() - started) * 1000)
        }
        var theirs: [Double] = []
        for run in 0..<5 {
            let log = context.file("ops-ffmpeg-jpeg-\(run).log")
            try ChildProcess.run("ffmpeg", ["-nostdin", "-benchmark", "-y", "-i", keyframe, "-frames:v", "1", "-q:v",
                                            "4", context.file("ops-poster.jpg")], logFile: log)
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "rtime="),
               let value = Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." }) {
                theirs.append(value * 1000)
            }
        }
        let section = Self.section
        report.record(section, "poster decode + JPEG, 720p keyframe", unit: "ms", ours: Measure.median(ours),
                      peer: Measure.median(theirs), peerName: "ffmpeg -benchmark rtime",
                      note: "PosterRenderer.render in this process, median of 20; ffmpeg's whole transcode of the "
                        + "one frame, median of 5")
        report.record(section, "poster over HTTP: first request (loads the libraries)", unit: "ms",
                      ours: poster["first_ms"] as? Double)
        report.record(section, "poster over HTTP: after the 10 s refresh (a decode)", unit: "ms",
                      ours: poster["refreshed_ms"] as? Double,
                      note: "status \(poster["refreshed_status"] ?? "?"), \(poster["bytes"] ?? 0) bytes")
        report.record(section, "poster over HTTP: cached, p50", unit: "ms", ours: poster["cached_p50_ms"] as? Double,
                      note: "\(Self.cachedPosterRequests) GETs over one keep-alive connection (Python)")
    }

    private func makeFiles() throws -> Files {
        let script = context.file("ops.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let shows = context.file("ops-shows.json")
        let hosts = (["ann"] + (1...9).map { "host\($0)" }).map { "\"\($0)\"" }.joined(separator: ", ")
        try #"{"streams": [{"pattern": "show:{id}", "hosts": [\#(hosts)], "users": "viewer", "visitors": "viewer"}]}"#
            .write(toFile: shows, atomically: true, encoding: .utf8)
        let secretText = String(repeating: "c", count: 48)
        let tokenSecret = context.file("ops-token-secret")
        let webhookSecret = context.file("ops-webhook-secret")
        let hostToken = context.file("ops-host-token")
        // Ten hosts' tokens, a line each: the first, ann, takes the ingest key; all ban.
        let secret = try TokenSecret(Array(secretText.utf8))
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        let token = (["ann"] + (1...9).map { "host\($0)" })
            .map { AccessToken(subject: $0, expiresAt: expires).signed(with: secret) }.joined(separator: "\n")
        for (path, text) in [(tokenSecret, secretText), (webhookSecret, String(repeating: "w", count: 32)),
                             (hostToken, token)] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }
        return Files(script: script, shows: shows, tokenSecret: tokenSecret, webhookSecret: webhookSecret,
                     hostToken: hostToken)
    }

    /// Runs the script and returns the JSON object of its last line.
    private func python(_ arguments: [String], log: String) throws -> [String: Any] {
        let path = context.file(log)
        try ChildProcess.run("python3", [context.file("ops.py")] + arguments, logFile: path)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").last,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw BenchError("ops.py \(arguments.first ?? "") printed no result: \(text.suffix(400))")
        }
        return object
    }

    private func pace(port: Int, path: String, rate: Double, _ seconds: Double) throws -> [String: Any] {
        try python(["pace", "127.0.0.1", "\(port)", path, "\(rate)", "\(seconds)"], log: "ops-pace.log")
    }

    private func host(_ server: Server, _ arguments: String...) throws -> [String: Any] {
        try python(["host", "ws://127.0.0.1:\(server.httpPort)/v1/streams/show:ops", context.file("ops-host-token")]
                    + arguments, log: "ops-host.log")
    }

    private func deliveries(_ log: String) -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count
    }
}
