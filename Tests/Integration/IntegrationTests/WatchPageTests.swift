import Foundation
import Media
import TestSupport
import Testing

/// The watch page (`/watch/NAME`) of a real `stream serve --shows`, in Debian's Chromium driven by Playwright: the
/// picture of `stream broadcast --source test` (over RTMP) plays over WebRTC and, in the second run, through Stream's
/// LL-HLS player; two browser contexts chat, react and count each other, a mod's ban ends the banned page, and the
/// host's end shows "Ended".
///
/// The latency of every frame the page presents (its clock minus the time code burnt into the test pattern) is
/// printed, not asserted (figures belong to benchmarks). `STREAM_WATCH_MODE=plain` plays the playlist as a player
/// without LL-HLS would, for comparison; `STREAM_WATCH_SECONDS=N` measures for N seconds (default 6);
/// `STREAM_WATCH_SCREENSHOT=FILE` keeps the screenshot of the mod's page (the README's docs/images/watch.png).
@Suite(.serialized) struct WatchPageTests {
    /// Where the test pattern's time code and frame counter are, as fractions of the picture.
    static func geometry() -> HLSPeers.Geometry {
        let pattern = ScreenPattern(width: 1920, height: 1080)
        func row(_ rect: (Int) -> PiPRect, bits: Int) -> HLSPeers.Geometry.Row {
            let blocks = (0..<bits).map(rect)
            return HLSPeers.Geometry.Row(x: blocks.map { (Double($0.x) + Double($0.width) / 2) / 1920 },
                                         y: (Double(blocks[0].y) + Double(blocks[0].height) / 2) / 1080)
        }
        return HLSPeers.Geometry(timecode: row(pattern.timeCodeRect(bit:), bits: ScreenPattern.timeCodeBits),
                                 frame: row(pattern.blockRect(bit:), bits: ScreenPattern.frameNumberBits))
    }

    /// curl: the page with its headers for a stream name, 404 for what is not one; the assets by name.
    @Test func thePageAndItsAssetsAreServedWithTheirHeaders() throws {
        let served = try LiveShowServeTests.Served()
        let base = "http://127.0.0.1:\(served.httpPort)"
        func get(_ path: String) throws -> (status: Int, head: String, body: String) {
            let result = try Subprocess.run("curl", ["-sS", "-D", "-", base + path], timeout: 10)
            let parts = result.stdout.components(separatedBy: "\r\n\r\n")
            let status = Int(parts[0].split(separator: " ").dropFirst().first ?? "") ?? 0
            return (status, parts[0].lowercased(), parts.dropFirst().joined(separator: "\r\n\r\n"))
        }
        let page = try get("/watch/show:mugs")
        #expect(page.status == 200 && page.head.contains("content-type: text/html; charset=utf-8"))
        #expect(page.head.contains("content-security-policy: default-src 'self'; script-src 'self'"))
        #expect(page.head.contains("cache-control: no-cache") && page.head.contains("referrer-policy: no-referrer"))
        #expect(page.body.contains("<script src=\"/assets/watch.js\"></script>"))
        #expect(try get("/watch/not%20a%20name").status == 404)
        #expect(try get("/watch/" + String(repeating: "a", count: 129)).status == 404)
        let script = try get("/assets/watch.js")
        #expect(script.status == 200 && script.head.contains("content-type: text/javascript; charset=utf-8"))
        #expect(script.head.contains("cache-control: public, max-age=300"))
        #expect(try get("/assets/hls-player.js").status == 200)
        #expect(try get("/assets/watch.css").head.contains("content-type: text/css; charset=utf-8"))
        #expect(try get("/assets/nothing.js").status == 404)
    }

    /// Once as the page plays by default (WebRTC), once over LL-HLS (`?mode=hls`): the latency printed for each.
    @Test(arguments: ["webrtc", "low-latency"])
    func aLiveShowPlaysChatsReactsCountsBansAndEnds(defaultMode: String) throws {
        let served = try LiveShowServeTests.Served()
        try WatchPagePeers.script.write(toFile: served.work.file("watch_page.py"), atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment
        let mode = environment["STREAM_WATCH_MODE"] ?? defaultMode
        let screenshot = served.work.file("watch.png")
        let geometry = String(decoding: try JSONEncoder().encode(Self.geometry()), as: UTF8.self)
        let result = try Subprocess.run("python3", [
            served.work.file("watch_page.py"), "http://127.0.0.1:\(served.httpPort)", served.secretFile,
            try StreamExecutable.url().path, served.work.path, geometry, screenshot, mode,
            environment["STREAM_WATCH_SECONDS"] ?? "6", HLSPeers.directory,
        ], timeout: 240)
        #expect(result.status == 0, "\(result.stdout.suffix(2000)) \(result.stderr.suffix(4000))")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((report?["checks"] as? Int ?? 0) >= 25, "\(line)")
        print("watch page (\(mode)): \(line)")
        let shot = try #require(FileManager.default.contents(atPath: screenshot))
        #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the screenshot is a PNG")
        if let keep = environment["STREAM_WATCH_SCREENSHOT"] {
            try shot.write(to: URL(fileURLWithPath: keep))
        }
    }

    /// `stream demo` as the README runs it: its printed watch page plays the test broadcast to a visitor over
    /// WebRTC, who can chat and is counted; its host link goes live from the browser's camera; the page says "ended"
    /// when the demo's time is up; the recording is kept as before.
    @Test func theDemoServesItsShowsWatchPageUntilTheShowEnds() throws {
        let home = try TemporaryDirectory("watch-demo")
        let demo = try BackgroundProcess(try StreamExecutable.url().path, [
            "demo", "--duration", "20", "--quality", "480", "--fps", "24", "--output", home.file("demo"),
        ], environment: ["XDG_CONFIG_HOME": home.file("config"), "HOME": home.path, "TERM": "dumb"],
           errorLog: home.file("demo.err"))
        defer { demo.stop() }
        var page: String?
        var hostPage: String?
        for _ in 0..<10 where page == nil || hostPage == nil {
            let line = try demo.readLine(timeout: 30)
            if line.hasPrefix("Watch it live") { page = line.split(separator: " ").last.map(String.init) }
            if line.hasPrefix("Go live from the browser") { hostPage = line.split(separator: " ").last.map(String.init) }
        }
        let url = try #require(page, "no watch page printed")
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/watch/demo"))
        let host = try #require(hostPage, "no host link printed")
        #expect(host.hasPrefix(url + "#token="), "the host link is the watch page with a token in its fragment")
        try WatchPagePeers.demo.write(toFile: home.file("demo_page.py"), atomically: true, encoding: .utf8)
        let result = try Subprocess.run("python3", [home.file("demo_page.py"), url, host], timeout: 120)
        #expect(result.status == 0, "\(result.stderr.suffix(3000))")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(report?["count"] as? String == "1 watching", "\(line)")
        #expect((report?["you"] as? String)?.hasPrefix("visitor-") == true, "\(line)")
        #expect(report?["ended"] as? String == "The show has ended.", "\(line)")
        #expect(report?["mine"] as? Int == 2 && report?["sameVisitor"] as? Bool == true,
                "after a reload the visitor is the same one: \(line)")
        #expect((report?["mode"] as? String)?.hasPrefix("WebRTC") == true, "the visitor plays over WebRTC: \(line)")
        #expect((report?["hostStatus"] as? String)?.contains("Camera: live") == true,
                "the host link goes live from the browser: \(line)")
        #expect((report?["errors"] as? [String])?.isEmpty == true, "\(line)")
        #expect(demo.waitForExit(timeout: 30) == 0)
        var recording: String?
        while recording == nil, let line = try? demo.readLine(timeout: 5) {
            if line.hasPrefix("Recording: ") { recording = String(line.dropFirst("Recording: ".count)) }
        }
        let path = try #require(recording, "no recording printed")
        #expect(try ProbeReport.probe(path).video?.codecName == "h264")
    }
}
