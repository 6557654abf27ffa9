import Foundation
import TestSupport
import Testing

/// WHEP playback of a show as viewers run it: the real `stream serve --shows`, two aiortc publishers putting the
/// host's camera (red) and screen (blue) on air over WHIP with the host's token, a Python `websockets` client joined
/// as the host (it switches the main picture and bans), aiortc players with a viewer's token, a visitor's nothing
/// and a session's media token, and curl for the refusals.
@Suite(.startsPeers, .serialized) struct ServeShowWHEPTests {
    static let shows = """
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"},
                     {"pattern": "quiet:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "none"}]}
        """
    static let secret = "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e"
    static let red = [200, 40, 40]
    static let blue = [40, 60, 200]

    /// The host's side: mints tokens as an app's backend would, joins as the host, prints its welcome's media token,
    /// then runs the commands the test writes as `cmd-N.json` (a request, or `until` a main picture and tiles) and
    /// prints each reply or the show's pictures. Each wait is bounded.
    static let host = #"""
        import asyncio, base64, hashlib, hmac, json, os, sys, time
        from websockets.asyncio.client import connect

        BASE, SECRET, STREAM, DIR = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]

        def mint(sub):
            def b64(raw):
                return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            now = int(time.time())
            head = (b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "."
                    + b64(json.dumps({"sub": sub, "exp": now + 3600, "iat": now}).encode()))
            return head + "." + b64(hmac.new(SECRET.encode(), head.encode(), hashlib.sha256).digest())

        def say(value):
            print(json.dumps(value), flush=True)

        async def main():
            ann = mint("ann")
            say({"ann": ann, "bob": mint("bob"), "carl": mint("carl")})
            state = {"show": None, "replies": {}}
            changed = asyncio.Condition()
            async with connect(f"ws://{BASE}/v1/streams/{STREAM}?access_token={ann}", proxy=None) as ws:
                async def read():
                    async for text in ws:
                        message = json.loads(text)
                        async with changed:
                            if message.get("reply") == 1 and message.get("ok"):
                                state["show"] = dict(message["show"])
                                state["access"] = message["access"]["token"]
                            elif message.get("reply") is not None:
                                state["replies"][message["reply"]] = message
                            elif message.get("event") == "tiles" and state["show"] is not None:
                                state["show"]["tiles"] = message["tiles"]
                                state["show"]["main"] = message["main"]
                            changed.notify_all()
                reader = asyncio.create_task(read())
                async def until(predicate, what, timeout=30):
                    async def wait():
                        async with changed:
                            await changed.wait_for(predicate)
                    try:
                        await asyncio.wait_for(wait(), timeout)
                    except asyncio.TimeoutError:
                        raise AssertionError(f"no {what} within {timeout} s: {state['show']}")
                await ws.send(json.dumps({"op": "join", "id": 1}))
                await until(lambda: state["show"] is not None, "welcome")
                say({"joined": state["show"]["state"], "access": state["access"]})
                n = 2
                while True:
                    path = os.path.join(DIR, f"cmd-{n}.json")
                    deadline = time.time() + 90
                    while not os.path.exists(path):
                        if time.time() > deadline:
                            raise AssertionError("no command " + path)
                        await asyncio.sleep(0.05)
                    command = json.load(open(path))
                    if "until" in command:
                        want = command["until"]
                        await until(lambda: state["show"].get("main") == want["main"]
                                    and all(t in state["show"].get("tiles", []) for t in want["tiles"]),
                                    json.dumps(want))
                        say({"main": state["show"]["main"], "tiles": state["show"]["tiles"]})
                    else:
                        command["id"] = n
                        await ws.send(json.dumps(command))
                        await until(lambda: n in state["replies"], f"the reply to {command['op']}")
                        say({"reply": state["replies"][n]})
                    n += 1

        asyncio.run(main())
        """#

    /// `stream serve --shows` with WebRTC on, and the host joined to show:x.
    struct Stage {
        let directory: TemporaryDirectory
        let process: BackgroundProcess
        var served: ServeWHIPTests.Served
        let host: BackgroundProcess
        let base: String
        var tokens: [String: String] = [:]
        var command = 2

        static func start(_ name: String) async throws -> Stage {
            let directory = try TemporaryDirectory(name)
            let secretFile = directory.file("token-secret")
            try "\(ServeShowWHEPTests.secret)\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
            #expect(chmod(secretFile, 0o600) == 0)
            try ServeShowWHEPTests.shows.write(toFile: directory.file("shows.json"), atomically: true, encoding: .utf8)
            try ServeShowWHEPTests.host.write(toFile: directory.file("host.py"), atomically: true, encoding: .utf8)
            let process = try BackgroundProcess(try StreamExecutable.url().path, [
                "serve", "--no-record", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                "--webrtc-listen", "127.0.0.1:0", "--shows", directory.file("shows.json"),
                "--token-secret-file", secretFile, "--data-dir", directory.file("data"), "--duration", "120",
            ], environment: TemporaryConfigHome.environment(in: directory.path), errorLog: directory.file("serve.log"))
            var served = ServeWHIPTests.Served(process: process, httpPort: 0, udpPort: 0, lines: [])
            _ = try await served.waitFor("WHEP of shows at /v1/streams/NAME/whep")
            let http = try await served.waitFor("HTTP on http://127.0.0.1:")
            let base = "127.0.0.1:\(Int(http.split(separator: ":")[2].prefix { $0.isNumber }) ?? 0)"
            let host = try BackgroundProcess("python3", [directory.file("host.py"), base, secretFile, "show:x",
                                                         directory.path],
                                             errorLog: directory.file("host.log"))
            var stage = Stage(directory: directory, process: process, served: served, host: host, base: base)
            let minted = try await stage.next()
            for user in ["ann", "bob", "carl"] { stage.tokens[user] = try #require(minted[user] as? String) }
            let joined = try await stage.next()
            stage.tokens["access"] = try #require(joined["access"] as? String)
            return stage
        }

        /// The host's next JSON line, within 40 s.
        func next() async throws -> [String: Any] {
            let host = self.host
            let line = try await offPool { try host.readLine(timeout: 40) }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                let log = (try? String(contentsOfFile: directory.file("host.log"), encoding: .utf8)) ?? ""
                throw WaitTimeout(description: "the host printed no JSON: \(line)\n\(log)")
            }
            return object
        }

        /// Has the host run `command` and returns what it printed.
        mutating func run(_ command: [String: Any]) async throws -> [String: Any] {
            let data = try JSONSerialization.data(withJSONObject: command)
            try data.write(to: URL(fileURLWithPath: directory.file("cmd-\(self.command).json")), options: .atomic)
            self.command += 1
            return try await next()
        }

        func whep(_ show: String = "show:x", tile: String? = nil) -> String {
            "http://\(base)/v1/streams/\(show)/whep" + (tile.map { "?tile=" + $0 } ?? "")
        }

        /// A POST of a dummy offer (refused before it is read as SDP), with `token` as the bearer.
        func post(_ url: String, token: String?) async throws -> String {
            try await ServeWHIPTests.curl(["-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "v=0"]
                + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []) + [url])
        }

        /// aiortc publishing the host's `tile` in `colour`, connected.
        func publish(_ tile: String, colour: [Int]) async throws -> AiortcPublisher {
            let aiortc = try AiortcPublisher(whipURL: "http://\(base)/v1/streams/show:x/whip?tile=\(tile)",
                                             key: tokens["ann"], colour: colour)
            let posted = try await aiortc.next()
            #expect(posted["status"] as? Int == 201, "\(posted)\n\(aiortc.log.suffix(2000))")
            let state = try await aiortc.next()
            #expect(state["state"] as? String == "connected", "\(state)\n\(aiortc.log.suffix(2000))")
            return aiortc
        }
    }

    static func near(_ rgb: Any?, _ colour: [Int]) -> Bool {
        guard let rgb = rgb as? [Double], rgb.count == 3 else { return false }
        return zip(rgb, colour).allSatisfy { abs($0 - Double($1)) < 30 }
    }

    /// A player that starts, connects and decodes `colour`; returns its summary after `seconds`.
    static func play(_ url: String, token: String?, colour: [Int]) async throws -> [String: Any] {
        let player = try AiortcPlayer(whepURL: url, seconds: 1, token: token)
        defer { player.stop() }
        let created = try await player.next()
        #expect(created["status"] as? Int == 201, "\(created)\n\(player.log.suffix(2000))")
        #expect((created["location"] as? String)?.hasPrefix("/v1/streams/show:x/whep/") == true, "\(created)")
        let connected = try await player.next()
        #expect(connected["state"] as? String == "connected", "\(connected)\n\(player.log.suffix(2000))")
        let seen = try await player.next()
        #expect((seen["video"] as? Int ?? 0) >= 10 && near(seen["rgb"], colour), "\(seen)")
        let deleted = try await player.next()
        #expect(deleted["deleted"] as? Int == 200 && deleted["again"] as? Int == 404, "\(deleted)")
        return seen
    }

    @Test(.timeLimit(.minutes(3))) func viewersPlayAShowFollowingItsMainPicture() async throws {
        var stage = try await Stage.start("serve-show-whep")
        defer { stage.process.stop(); stage.host.stop() }
        let camera = try await stage.publish("camera", colour: Self.red)
        defer { camera.stop() }
        let screen = try await stage.publish("screen", colour: Self.blue)
        defer { screen.stop() }
        let live = try await stage.run(["until": ["main": "screen", "tiles": ["camera", "screen"]]])
        #expect(live["main"] as? String == "screen", "\(live)")

        // Refusals: a visitor where visitors may not watch 401, a bad token 401, no such show 404, nothing on
        // the obs tile 404, a tile that is none 400.
        let quiet = try await stage.post(stage.whep("quiet:x"), token: nil)
        #expect(quiet.hasPrefix("HTTP/1.1 401") && quiet.contains("WWW-Authenticate: Bearer"), "\(quiet)")
        let forged = try await stage.post(stage.whep(), token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bm9wZQ")
        #expect(forged.hasPrefix("HTTP/1.1 401"), "\(forged)")
        let unknown = try await stage.post("http://\(stage.base)/v1/streams/radio:one/whep", token: stage.tokens["bob"])
        #expect(unknown.hasPrefix("HTTP/1.1 404"), "\(unknown)")
        let obs = try await stage.post(stage.whep(tile: "obs"), token: stage.tokens["bob"])
        #expect(obs.hasPrefix("HTTP/1.1 404"), "\(obs)")
        let nonsense = try await stage.post(stage.whep(tile: "main"), token: stage.tokens["bob"])
        #expect(nonsense.hasPrefix("HTTP/1.1 400"), "\(nonsense)")

        // A viewer plays the main picture (the screen, blue); the host makes the camera main: the same session
        // goes on decoding, now red.
        let player = try AiortcPlayer(whepURL: stage.whep(), seconds: 6, token: stage.tokens["bob"], ticks: true)
        defer { player.stop() }
        let created = try await player.next()
        #expect(created["status"] as? Int == 201, "\(created)\n\(player.log.suffix(2000))")
        #expect((created["location"] as? String)?.hasPrefix("/v1/streams/show:x/whep/") == true, "\(created)")
        #expect(try await player.next()["state"] as? String == "connected", "\(player.log.suffix(2000))")
        var tick = try await player.next()
        #expect(Self.near(tick["rgb"], Self.blue), "the screen first: \(tick)")
        let switched = try await stage.run(["op": "setMain", "tile": "camera"])
        #expect((switched["reply"] as? [String: Any])?["ok"] as? Bool == true, "\(switched)")
        let framesAtSwitch = tick["tick"] as? Int ?? 0
        var red: [String: Any]?
        while tick["tick"] != nil {
            if red == nil && Self.near(tick["rgb"], Self.red) { red = tick }
            tick = try await player.next()
        }
        let reached = try #require(red, "the picture never turned red (the camera) after setMain: \(tick)")
        #expect((reached["tick"] as? Int ?? 0) > framesAtSwitch, "\(reached)")
        #expect((tick["video"] as? Int ?? 0) >= framesAtSwitch + 60, "frames kept coming across the switch: \(tick)")
        #expect(Self.near(tick["rgb"], Self.red), "\(tick)")
        // The picture's clock stepped as the wall clock did, at the start and across the switch (a first keyframe
        // sent late, up to a keyframe interval old, is not followed by a jump of that age), and nothing froze.
        #expect((tick["ptsJump"] as? Double ?? 9) < 0.25 && (tick["stall"] as? Double ?? 9) < 0.5,
                "the picture jumped or froze across the switch: \(tick)")
        let deleted = try await player.next()
        #expect(deleted["deleted"] as? Int == 200 && deleted["again"] as? Int == 404, "\(deleted)")

        // A visitor (no token) plays the camera tile; the host's media token from its welcome plays the screen.
        _ = try await Self.play(stage.whep(tile: "camera"), token: nil, colour: Self.red)
        _ = try await Self.play(stage.whep(tile: "screen"), token: stage.tokens["access"], colour: Self.blue)

        // A ban ends the banned viewer's player and refuses them 403.
        let carl = try AiortcPlayer(whepURL: stage.whep(), seconds: 8, token: stage.tokens["carl"], ticks: true)
        defer { carl.stop() }
        #expect(try await carl.next()["status"] as? Int == 201, "\(carl.log.suffix(2000))")
        #expect(try await carl.next()["state"] as? String == "connected", "\(carl.log.suffix(2000))")
        let banned = try await stage.run(["op": "ban", "user": "carl"])
        #expect((banned["reply"] as? [String: Any])?["ok"] as? Bool == true, "\(banned)")
        let ended = try await stage.served.waitFor("its user was banned")
        #expect(ended.contains("show:x"), "\(ended)")
        let refused = try await stage.post(stage.whep(), token: stage.tokens["carl"])
        #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused)")

        stage.process.stop()
        let log = (try? String(contentsOfFile: stage.directory.file("serve.log"), encoding: .utf8)) ?? ""
        let printed = stage.served.lines.joined(separator: "\n") + log
        for (_, token) in stage.tokens { #expect(!printed.contains(token), "a token printed:\n\(printed)") }
        for answer in [quiet, forged, unknown, obs, nonsense, refused] {
            for (_, token) in stage.tokens { #expect(!answer.contains(token), "a token in an answer: \(answer)") }
        }
    }

    /// A show's OBS picture (an RTMP publish with the show's ingest key: ffmpeg here, the test pattern and a 1 kHz
    /// tone) plays over WHEP too: its H.264 forwarded, its AAC made Opus; and a main-picture player on the WHIP
    /// camera follows the host's switch to it in the same session.
    @Test(.timeLimit(.minutes(3))) func anOBSPictureOverRTMPPlaysOverWHEPWithItsSound() async throws {
        var stage = try await Stage.start("serve-show-whep-obs")
        defer { stage.process.stop(); stage.host.stop() }
        let camera = try await stage.publish("camera", colour: Self.red)
        defer { camera.stop() }
        _ = try await stage.run(["until": ["main": "camera", "tiles": ["camera"]]])
        let follower = try AiortcPlayer(whepURL: stage.whep(), seconds: 8, token: stage.tokens["bob"], ticks: true)
        defer { follower.stop() }
        #expect(try await follower.next()["status"] as? Int == 201, "\(follower.log.suffix(2000))")
        #expect(try await follower.next()["state"] as? String == "connected", "\(follower.log.suffix(2000))")

        let ingest = try await stage.run(["op": "ingest"])
        let reply = try #require(ingest["reply"] as? [String: Any], "\(ingest)")
        let url = try #require(reply["url"] as? String, "\(reply)")
        let key = try #require(reply["key"] as? String, "\(reply)")
        let fixture = try MediaFixture.makeFLV(in: stage.directory, seconds: 10)
        let ffmpeg = OffPoolTask("ffmpeg-obs") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv",
                                          url + "/" + key], timeout: 40)
        }
        _ = try await stage.run(["until": ["main": "obs", "tiles": ["camera", "obs"]]])

        // The main-picture player, red until now, turns to the test pattern without a new session.
        var tick = try await follower.next()
        var turned: [String: Any]?
        while tick["tick"] != nil {
            if turned == nil, let rgb = tick["rgb"] as? [Double], rgb.count == 3, !Self.near(rgb, Self.red) {
                turned = tick
            }
            tick = try await follower.next()
        }
        #expect(turned != nil, "the main picture never left the red camera for the OBS picture: \(tick)")
        #expect((tick["video"] as? Int ?? 0) >= 150, "frames kept coming across the switch: \(tick)")

        // A viewer of the obs tile gets its picture and its sound, the 1 kHz tone.
        let player = try AiortcPlayer(whepURL: stage.whep(tile: "obs"), seconds: 2, token: stage.tokens["bob"])
        defer { player.stop() }
        #expect(try await player.next()["status"] as? Int == 201, "\(player.log.suffix(2000))")
        #expect(try await player.next()["state"] as? String == "connected", "\(player.log.suffix(2000))")
        let seen = try await player.next()
        print("A show's OBS picture over WHEP: \(seen)")
        #expect((seen["video"] as? Int ?? 0) >= 30, "\(seen)")
        #expect((seen["audio"] as? Int ?? 0) >= 50, "Opus made from the publish's AAC: \(seen)")
        #expect(abs((seen["tone"] as? Double ?? 0) - 1000) < 50, "the 1 kHz tone, within 5 %: \(seen)")
        _ = try await player.next()
        #expect(try await ffmpeg.value.status == 0)
        for (_, token) in stage.tokens {
            #expect(!stage.served.lines.joined(separator: "\n").contains(token), "a token printed")
        }
        #expect(!stage.served.lines.joined(separator: "\n").contains(key), "the ingest key printed")
    }
}
