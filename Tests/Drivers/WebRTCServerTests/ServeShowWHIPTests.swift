import Foundation
import TestSupport
import Testing

/// A show's camera over WHIP as a host runs it: the real `stream serve --shows`, aiortc (a WebRTC stack we did not
/// write) POSTing to `/v1/streams/NAME/whip?tile=camera` with the host's access token, a Python `websockets` client
/// joined to the show watching it go live and end, and curl for the refusals.
@Suite(.startsPeers, .serialized) struct ServeShowWHIPTests {
    static let shows = """
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"}]}
        """
    static let secret = "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e"

    /// The show's side: mints tokens as an app's backend would (Python's own hmac), joins as the host and prints one
    /// JSON line per step: the tokens, the welcome, (in the mode `grant`, goLive's grant for the screen), the show
    /// live with its camera (the screen for `grant`), that picture's LL-HLS listing parts (fetched with the
    /// session's media token), the picture gone (in the mode `end`, the host ends the show first; in `end` and
    /// `live`, the show is also `ended`).
    static let watcher = #"""
        import asyncio, base64, hashlib, hmac, json, re, sys, time, urllib.request, urllib.error
        from websockets.asyncio.client import connect

        BASE, SECRET, STREAM, MODE = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]
        TILE = "screen" if MODE == "grant" else "camera"

        def mint(sub, exp_in=3600):
            def b64(raw):
                return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            now = int(time.time())
            head = (b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "."
                    + b64(json.dumps({"sub": sub, "exp": now + exp_in, "iat": now}).encode()))
            return head + "." + b64(hmac.new(SECRET.encode(), head.encode(), hashlib.sha256).digest())

        def say(value):
            print(json.dumps(value), flush=True)

        def get(path):
            try:
                with urllib.request.urlopen("http://" + BASE + path, timeout=10) as response:
                    return response.status, response.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()

        def init_has_aac(path, body):
            # The playlist's init segment: an AAC track has an mp4a sample entry (the Opus transcoded).
            found = re.search(r'#EXT-X-MAP:URI="([^"]+)"', body)
            if not found:
                return False
            uri = found.group(1)
            full = uri if uri.startswith("/") else path.split("?")[0].rsplit("/", 1)[0] + "/" + uri
            try:
                with urllib.request.urlopen("http://" + BASE + full, timeout=10) as response:
                    return b"mp4a" in response.read()
            except urllib.error.URLError:
                return False

        async def main():
            ann = mint("ann")
            say({"ann": ann, "bob": mint("bob")})
            state = {"show": None}
            changed = asyncio.Condition()
            async with connect(f"ws://{BASE}/v1/streams/{STREAM}?access_token={ann}", proxy=None) as ws:
                async def read():
                    async for text in ws:
                        message = json.loads(text)
                        async with changed:
                            if message.get("reply") == 1 and message.get("ok"):
                                state["show"] = dict(message["show"])
                                state["access"] = message["access"]["token"]
                            elif message.get("reply") == 2:
                                state["endReply"] = message.get("ok")
                            elif message.get("reply") == 3:
                                state["grants"] = message.get("grants") or []
                            elif message.get("event") == "state" and state["show"] is not None:
                                state["show"]["state"] = message["state"]
                            elif message.get("event") == "tiles" and state["show"] is not None:
                                state["show"]["tiles"] = message["tiles"]
                                state["show"]["main"] = message["main"]
                            changed.notify_all()
                reader = asyncio.create_task(read())
                async def until(predicate, what, timeout=30):
                    async def wait():
                        async with changed:
                            await changed.wait_for(lambda: state["show"] is not None and predicate(state["show"]))
                    try:
                        await asyncio.wait_for(wait(), timeout)
                    except asyncio.TimeoutError:
                        raise AssertionError(f"no {what} within {timeout} s: {state['show']}")
                await ws.send(json.dumps({"op": "join", "id": 1}))
                await until(lambda show: True, "welcome")
                say({"joined": state["show"]["state"], "tiles": state["show"].get("tiles", [])})
                if MODE == "grant":
                    await ws.send(json.dumps({"op": "goLive", "id": 3, "tiles": [TILE]}))
                    await until(lambda show: "grants" in state, "goLive's grants")
                    say({"grant": state["grants"][0]["key"]})
                await until(lambda show: show["state"] == "live" and TILE in show.get("tiles", []), "live " + TILE)
                say({"live": state["show"]["state"], "tiles": state["show"]["tiles"], "main": state["show"]["main"]})
                path = f"/hls/{STREAM}/{state['access']}/{TILE}.m3u8"
                deadline, status, body = time.time() + 20, 0, ""
                while time.time() < deadline and "#EXT-X-PART:" not in body:
                    blocking = path + "?_HLS_msn=0&_HLS_part=2"
                    status, body = await asyncio.get_running_loop().run_in_executor(None, get, blocking)
                    if "#EXT-X-PART:" not in body:
                        await asyncio.sleep(0.5)
                main_status, _ = get(f"/hls/{STREAM}/{state['access']}/main.m3u8")
                no_token, _ = get(f"/hls/{STREAM}/{TILE}.m3u8")
                say({"tile": status, "parts": "#EXT-X-PART:" in body, "main": main_status, "noToken": no_token,
                     "aac": init_has_aac(path, body)})
                if MODE == "end":
                    await ws.send(json.dumps({"op": "end", "id": 2}))
                await until(lambda show: TILE not in show.get("tiles", []), TILE + " gone")
                if MODE in ("end", "live"):
                    await until(lambda show: show["state"] == "ended", "the show ended")
                say({"ended": state["show"]["state"], "tiles": state["show"]["tiles"]})
                reader.cancel()

        asyncio.run(main())
        """#

    /// `stream serve --shows` with WHIP, and the watcher joined to show:mugs as its host.
    struct Stage {
        let directory: TemporaryDirectory
        let process: BackgroundProcess
        var served: ServeWHIPTests.Served
        let watcher: BackgroundProcess
        let base: String
        let ann: String
        let bob: String

        static func start(_ name: String, mode: String) async throws -> Stage {
            let directory = try TemporaryDirectory(name)
            let secretFile = directory.file("token-secret")
            try "\(ServeShowWHIPTests.secret)\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
            #expect(chmod(secretFile, 0o600) == 0)
            try ServeShowWHIPTests.shows.write(toFile: directory.file("shows.json"), atomically: true, encoding: .utf8)
            try ServeShowWHIPTests.watcher.write(toFile: directory.file("watcher.py"), atomically: true,
                                                 encoding: .utf8)
            let process = try BackgroundProcess(try StreamExecutable.url().path, [
                "serve", "--no-record", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                "--webrtc-listen", "127.0.0.1:0", "--shows", directory.file("shows.json"),
                "--token-secret-file", secretFile, "--data-dir", directory.file("data"), "--duration", "90",
            ], environment: TemporaryConfigHome.environment(in: directory.path), errorLog: directory.file("serve.log"))
            var served = ServeWHIPTests.Served(process: process, httpPort: 0, udpPort: 0, lines: [])
            _ = try await served.waitFor("WHIP into shows at /v1/streams/NAME/whip")
            let http = try await served.waitFor("HTTP on http://127.0.0.1:")
            let base = "127.0.0.1:\(Int(http.split(separator: ":")[2].prefix { $0.isNumber }) ?? 0)"
            let watcher = try BackgroundProcess("python3", [directory.file("watcher.py"), base, secretFile,
                                                            "show:mugs", mode],
                                                errorLog: directory.file("watcher.log"))
            var stage = Stage(directory: directory, process: process, served: served, watcher: watcher, base: base,
                              ann: "", bob: "")
            let tokens = try await stage.next()
            stage = Stage(directory: directory, process: process, served: served, watcher: watcher, base: base,
                          ann: try #require(tokens["ann"] as? String), bob: try #require(tokens["bob"] as? String))
            let joined = try await stage.next()
            #expect(joined["joined"] as? String == "idle", "\(joined)")
            return stage
        }

        var endpoint: String { "http://\(base)/v1/streams/show:mugs/whip" }

        /// The watcher's next JSON line, within 40 s.
        func next() async throws -> [String: Any] {
            let watcher = self.watcher
            let line = try await offPool { try watcher.readLine(timeout: 40) }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                let log = (try? String(contentsOfFile: directory.file("watcher.log"), encoding: .utf8)) ?? ""
                throw WaitTimeout(description: "the watcher printed no JSON: \(line)\n\(log)")
            }
            return object
        }

        /// A POST of a dummy offer (refused before it is read, or as SDP), with `token` as the bearer.
        func post(_ url: String, token: String?) async throws -> String {
            try await ServeWHIPTests.curl(["-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "v=0"]
                + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []) + [url])
        }

        /// aiortc publishing the host's camera; the show live with it, its LL-HLS listing parts.
        mutating func publishCamera() async throws -> (AiortcPublisher, location: String) {
            let aiortc = try AiortcPublisher(whipURL: endpoint + "?tile=camera", key: ann)
            let posted = try await aiortc.next()
            #expect(posted["status"] as? Int == 201, "\(posted)\n\(aiortc.log.suffix(2000))")
            let location = try #require(posted["location"] as? String, "\(posted)")
            #expect(location.hasPrefix("/v1/streams/show:mugs/whip/"), "\(location)")
            let state = try await aiortc.next()
            #expect(state["state"] as? String == "connected", "\(state)\n\(aiortc.log.suffix(2000))")
            let live = try await next()
            #expect(live["live"] as? String == "live" && live["main"] as? String == "camera", "\(live)")
            _ = try await served.waitFor("/hls/show:mugs/TOKEN/camera.m3u8")
            let media = try await next()
            #expect(media["tile"] as? Int == 200 && media["parts"] as? Bool == true, "\(media)")
            #expect(media["main"] as? Int == 200 && media["noToken"] as? Int == 401, "\(media)")
            #expect(media["aac"] as? Bool == true, "the camera's Opus is AAC in its LL-HLS: \(media)")
            return (aiortc, location)
        }

        /// Stops the server; nothing it printed holds a token or `secrets`.
        func stopAndCheckTheLog(_ secrets: [String]) {
            process.stop()
            let log = (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? ""
            let printed = served.lines.joined(separator: "\n") + log
            for secret in [ann, bob] + secrets {
                #expect(!printed.contains(secret), "a token or session id printed:\n\(printed)")
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func aiortcMakesTheHostsCameraLiveANewSessionTakesItOverAndDeleteEndsIt()
        async throws {
        var stage = try await Stage.start("serve-show-whip", mode: "delete")
        defer { stage.process.stop(); stage.watcher.stop() }

        // Refusals, before anything is opened: no token 401, a viewer 403, an unknown show 404, a bad tile 400.
        let none = try await stage.post(stage.endpoint + "?tile=camera", token: nil)
        #expect(none.hasPrefix("HTTP/1.1 401") && none.contains("WWW-Authenticate: Bearer"), "\(none)")
        let viewer = try await stage.post(stage.endpoint + "?tile=camera", token: stage.bob)
        #expect(viewer.hasPrefix("HTTP/1.1 403"), "\(viewer)")
        let unknown = try await stage.post("http://\(stage.base)/v1/streams/radio:one/whip?tile=camera",
                                           token: stage.ann)
        #expect(unknown.hasPrefix("HTTP/1.1 404"), "\(unknown)")
        let badTile = try await stage.post(stage.endpoint + "?tile=obs", token: stage.ann)
        #expect(badTile.hasPrefix("HTTP/1.1 400"), "\(badTile)")
        for answer in [none, viewer, unknown, badTile] {
            #expect(!answer.contains(stage.ann) && !answer.contains(stage.bob), "a token in an answer: \(answer)")
        }

        // The host's camera: the show goes live with it, its LL-HLS lists parts for a joined session's token.
        let (aiortc, location) = try await stage.publishCamera()
        defer { aiortc.stop() }

        // A new WHIP session of the camera takes it over (the host's page publishing again after its path was
        // lost), but only once it connects: a bad offer leaves the live camera alone.
        let bad = try await stage.post(stage.endpoint + "?tile=camera", token: stage.ann)
        #expect(bad.hasPrefix("HTTP/1.1 406"), "an offer with no codec we take: \(bad)")
        let second = try AiortcPublisher(whipURL: stage.endpoint + "?tile=camera", key: stage.ann)
        defer { second.stop() }
        let posted = try await second.next()
        #expect(posted["status"] as? Int == 201, "\(posted)\n\(second.log.suffix(2000))")
        let newLocation = try #require(posted["location"] as? String, "\(posted)")
        #expect(try await second.next()["state"] as? String == "connected", "\(second.log.suffix(2000))")
        let replaced = try await stage.served.waitFor("replaced by a new WHIP session of the same picture")
        #expect(replaced.contains("ended"), "\(replaced)")
        let first = try await aiortc.next()
        #expect(first["state"] as? String != "connected", "the first session was closed: \(first)")
        let gone = try await ServeWHIPTests.curl(["-X", "DELETE", "http://\(stage.base)\(location)"])
        #expect(gone.hasPrefix("HTTP/1.1 404"), "the replaced session is gone: \(gone)")

        // DELETE ends the camera and the show follows (the takeover never took it off the air: this is the first
        // time the watcher sees no picture).
        let deleted = try await ServeWHIPTests.curl(["-X", "DELETE", "http://\(stage.base)\(newLocation)"])
        #expect(deleted.hasPrefix("HTTP/1.1 200"), "\(deleted)")
        let ended = try await stage.next()
        #expect((ended["tiles"] as? [String])?.isEmpty == true && ended["ended"] as? String != "live", "\(ended)")
        let again = try await ServeWHIPTests.curl(["-X", "DELETE", "http://\(stage.base)\(newLocation)"])
        #expect(again.hasPrefix("HTTP/1.1 404"), "\(again)")
        stage.stopAndCheckTheLog([String(location.split(separator: "/").last ?? ""),
                                  String(newLocation.split(separator: "/").last ?? "")])
    }

    /// The host ends the show: its WHIP camera is closed, as its RTMP publishers are cut, and the show is `ended`.
    @Test(.timeLimit(.minutes(2))) func endingTheShowClosesItsWHIPCamera() async throws {
        var stage = try await Stage.start("serve-show-whip-end", mode: "end")
        defer { stage.process.stop(); stage.watcher.stop() }
        let (aiortc, location) = try await stage.publishCamera()
        defer { aiortc.stop() }
        let ended = try await stage.next()
        #expect((ended["tiles"] as? [String])?.isEmpty == true && ended["ended"] as? String == "ended", "\(ended)")
        let closed = try await aiortc.next()
        #expect(closed["state"] as? String != "connected", "\(closed)")
        let again = try await ServeWHIPTests.curl(["-X", "DELETE", "http://\(stage.base)\(location)"])
        #expect(again.hasPrefix("HTTP/1.1 404"), "the session is gone: \(again)")
        stage.stopAndCheckTheLog([String(location.split(separator: "/").last ?? "")])
    }

    /// `stream live --webrtc` (our CLI as the host) goes live over WHIP with the host's token: the watcher sees the
    /// show live with the camera and its LL-HLS parts, and the show ended when the command's --duration is over.
    @Test(.timeLimit(.minutes(2))) func streamLiveOverWebRTCMakesTheShowLive() async throws {
        var stage = try await Stage.start("serve-show-whip-live", mode: "live")
        defer { stage.process.stop(); stage.watcher.stop() }
        let home = try TemporaryConfigHome()
        let live = try BackgroundProcess(try StreamExecutable.url().path, [
            "live", "http://\(stage.base)", "show:mugs", "--webrtc", "--token-stdin", "--source", "test",
            "--test-size", "640x360", "--quality", "480", "--duration", "10",
        ], environment: home.environment.merging(["TERM": "dumb"]) { $1 },
           errorLog: stage.directory.file("live.err"), stdin: stage.ann + "\n")
        defer { live.stop() }
        let errors = { (try? String(contentsOfFile: stage.directory.file("live.err"), encoding: .utf8)) ?? "" }
        let onAir = try await stage.next()
        #expect(onAir["live"] as? String == "live" && onAir["main"] as? String == "camera", "\(onAir)\n\(errors())")
        _ = try await stage.served.waitFor("WHIP session 1 on show:mugs: receiving H.264 and Opus")
        let media = try await stage.next()
        #expect(media["tile"] as? Int == 200 && media["parts"] as? Bool == true, "\(media)")
        #expect(media["aac"] as? Bool == true, "stream live's Opus is AAC in the LL-HLS: \(media)")
        let ended = try await stage.next()
        #expect((ended["tiles"] as? [String])?.isEmpty == true && ended["ended"] as? String == "ended", "\(ended)")
        let status = try await offPool { live.waitForExit(timeout: 20) }
        #expect(status == 0, "stream live failed: \(errors().suffix(2000))")
        // What it printed: its media (the seed's room) connecting once it went live, then live, from the engine.
        let printed = try await offPool { () -> [String] in
            var lines: [String] = []
            while let line = try? live.readLine(timeout: 2) { lines.append(line) }
            return lines
        }
        let going = try #require(printed.firstIndex { $0.hasPrefix("Going live in show:mugs") }, "\(printed)")
        let states = printed.filter { $0.hasPrefix("media: ") }
        #expect(states.prefix(2) == ["media: connecting", "media: live"],
                "joined, the published path connecting, then live: \(printed)")
        #expect(printed[going...].contains("media: live"), "live after going live: \(printed)")
        stage.stopAndCheckTheLog([])
    }

    /// A goLive grant as the bearer: it publishes its own picture (the screen) and no other; the show goes live with
    /// it as the main picture; DELETE ends it.
    @Test(.timeLimit(.minutes(2))) func aGoLiveGrantPublishesItsPictureOnly() async throws {
        let stage = try await Stage.start("serve-show-whip-grant", mode: "grant")
        defer { stage.process.stop(); stage.watcher.stop() }
        let grant = try #require(try await stage.next()["grant"] as? String)
        let camera = try await stage.post(stage.endpoint + "?tile=camera", token: grant)
        #expect(camera.hasPrefix("HTTP/1.1 403") && !camera.contains(grant), "\(camera)")
        let aiortc = try AiortcPublisher(whipURL: stage.endpoint + "?tile=screen", key: grant)
        defer { aiortc.stop() }
        let posted = try await aiortc.next()
        #expect(posted["status"] as? Int == 201, "\(posted)\n\(aiortc.log.suffix(2000))")
        let location = try #require(posted["location"] as? String, "\(posted)")
        let live = try await stage.next()
        #expect(live["live"] as? String == "live" && live["main"] as? String == "screen", "\(live)")
        let media = try await stage.next()
        #expect(media["tile"] as? Int == 200 && media["parts"] as? Bool == true, "\(media)")
        #expect(media["aac"] as? Bool == true, "the screen's Opus is AAC in its LL-HLS: \(media)")
        let deleted = try await ServeWHIPTests.curl(["-X", "DELETE", "http://\(stage.base)\(location)"])
        #expect(deleted.hasPrefix("HTTP/1.1 200"), "\(deleted)")
        let ended = try await stage.next()
        #expect((ended["tiles"] as? [String])?.isEmpty == true && ended["ended"] as? String != "live", "\(ended)")
        stage.stopAndCheckTheLog([grant, String(location.split(separator: "/").last ?? "")])
    }
}
