import Foundation
import TestSupport
import Testing

@Suite(.serialized, .startsPeers) struct LiveCommandTests {
    /// `stream live` with the test sources makes the show live, over RTMP through the server's grant or with
    /// `--webrtc` over WHIP with the host's token; `stream watch --json` sees the state, the tile and the count
    /// change; Chromium on the show's watch page plays the picture over WebRTC (WHEP); Ctrl-C (SIGTERM) ends the show.
    @Test(arguments: [false, true]) func liveWithTestSourcesIsSeenByWatch(webrtc: Bool) throws {
        let server = try LiveShowServer()
        let cli = LiveShowCLI(server: server)
        let watcher = try cli.watch("bob", log: "watch.err")
        let welcome = try readEvents(watcher, until: "the welcome") { $0["event"] as? String == "welcome" }
        #expect(welcome.last?["state"] as? String == "idle" && welcome.last?["viewers"] as? Int == 1)
        let token = LiveShowCLI.token("ann")
        let live = try cli.start(["live", server.base, "show:mugs", "--token-stdin", "--source", "test",
                                  "--quality", "480", "--fps", "24"] + (webrtc ? ["--webrtc"] : []),
                                 stdin: token + "\n", log: "live.err")
        var events = try readEvents(watcher, until: "live") { $0["event"] as? String == "state" }
        #expect(events.last?["state"] as? String == "live")
        events = try readEvents(watcher, until: "the camera tile") { $0["event"] as? String == "tiles" }
        #expect(events.last?["tiles"] as? [String] == ["camera"] && events.last?["main"] as? String == "camera")
        let second = try cli.watch(nil, log: "visitor.err")
        events = try readEvents(watcher, until: "two watching") { $0["event"] as? String == "viewers" }
        #expect(events.last?["viewers"] as? Int == 2)
        // A browser (Chromium) on the show's watch page plays the picture `stream live` publishes.
        let page = try HLSPeers.playInBrowser(url: "http://127.0.0.1:\(server.httpPort)/watch/show:mugs", seconds: 6,
                                              geometry: nil)
        let played = page.samples.map(\.time)
        #expect(page.errors.isEmpty, "\(page.errors)")
        #expect(page.samples.last?.mode == "webrtc",
                "the page plays over WHEP by default, not \(page.samples.last?.mode ?? "no player")")
        #expect((played.last ?? 0) > (played.first { $0 > 0 } ?? .infinity) + 1,
                "the page's video time did not advance: \(played)")
        kill(live.pid, SIGTERM)
        #expect(live.waitForExit(timeout: 20) == 0)
        events = try readEvents(watcher, until: "ended") { $0["event"] as? String == "ended" }
        #expect(events.contains { $0["event"] as? String == "state" && $0["state"] as? String == "ended" })
        #expect(events.last?["reason"] as? String == "left")
        #expect(watcher.waitForExit(timeout: 10) == 0, "watch leaves with 0 when the show ends")
        #expect(second.waitForExit(timeout: 10) == 0)
        var liveOutput: [String] = []
        while let line = try? live.readLine(timeout: 0.2) { liveOutput.append(line) }
        #expect(liveOutput.contains { $0.hasPrefix("Going live in show:mugs as the camera picture") }, "\(liveOutput)")
        let everything = liveOutput.joined() + server.errorLog()
            + ((try? String(contentsOfFile: server.work.file("live.err"), encoding: .utf8)) ?? "")
        #expect(!everything.contains(token) && !everything.contains("grant_"), "a token or key was printed")
    }

    /// `--source screen` (Xvfb, PulseAudio) publishes the screen picture, which becomes the main one.
    @Test func liveWithTheX11ScreenIsTheScreenPicture() throws {
        let xvfb = try Xvfb(width: 320, height: 240)
        defer { xvfb.stop() }
        let pulse = try PulseAudioDaemon(sinks: [("speakers", 48_000)])
        defer { pulse.stop() }
        let server = try LiveShowServer()
        let cli = LiveShowCLI(server: server)
        let watcher = try cli.watch("bob", log: "watch.err")
        _ = try readEvents(watcher, until: "the welcome") { $0["event"] as? String == "welcome" }
        let live = try cli.start(["live", server.base, "show:mugs", "--token-stdin", "--source", "screen",
                                  "--display", xvfb.display, "--no-cursor", "--quality", "480", "--fps", "24",
                                  "--pip", "off"],
                                 stdin: LiveShowCLI.token("ann") + "\n", environment: ["PULSE_SERVER": pulse.server],
                                 log: "live.err")
        let events = try readEvents(watcher, until: "the screen tile", timeout: 30) {
            $0["event"] as? String == "tiles"
        }
        #expect(events.last?["tiles"] as? [String] == ["screen"] && events.last?["main"] as? String == "screen")
        kill(live.pid, SIGTERM)
        #expect(live.waitForExit(timeout: 20) == 0,
                "\((try? String(contentsOfFile: server.work.file("live.err"), encoding: .utf8)) ?? "")")
        #expect(watcher.waitForExit(timeout: 10) == 0)
    }

    @Test func aViewerCannotGoLive() throws {
        let server = try LiveShowServer()
        let result = try LiveShowCLI(server: server).run(
            ["live", server.base, "show:mugs", "--token-stdin", "--source", "test", "--quality", "480"],
            stdin: LiveShowCLI.token("bob") + "\n")
        #expect(result.status == 1 && result.stderr.contains("not_host"), "\(result.stderr)")
    }
}
