import Foundation
import Media
import TestSupport
import Testing

/// The watch page (`/watch/NAME`) of a real `stream serve --shows`, in Debian's Chromium driven by Playwright: the
/// picture of `stream broadcast --source test` plays through Stream's LL-HLS player, two browser contexts chat,
/// react and count each other, a mod's ban ends the banned page, and the host's end shows "Ended".
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

    @Test func aLiveShowPlaysChatsReactsCountsBansAndEnds() throws {
        let served = try LiveShowServeTests.Served()
        try WatchPagePeers.script.write(toFile: served.work.file("watch_page.py"), atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment
        let mode = environment["STREAM_WATCH_MODE"] ?? "low-latency"
        let screenshot = served.work.file("watch.png")
        let geometry = String(decoding: try JSONEncoder().encode(Self.geometry()), as: UTF8.self)
        let result = try Subprocess.run("python3", [
            served.work.file("watch_page.py"), "http://127.0.0.1:\(served.httpPort)", served.secretFile,
            try StreamExecutable.url().path, served.work.path, geometry, screenshot, mode,
            environment["STREAM_WATCH_SECONDS"] ?? "6",
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
}
