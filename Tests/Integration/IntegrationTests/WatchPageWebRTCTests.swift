import Foundation
import Media
import TestSupport
import Testing

/// The watch page over WebRTC (issue 31): in Debian's Chromium (Playwright) with a fake camera and screen, against
/// a real `stream serve --shows`, the host's page goes live over WHIP, a viewer's page plays over WHEP, and pages
/// fall back to LL-HLS where WHEP does not play.
@Suite(.serialized, .startsPeers) struct WatchPageWebRTCTests {
    @Test func theHostGoesLiveFromThePageAndViewersWatchOverWebRTCOrLLHLS() throws {
        let served = try LiveShowServeTests.Served()
        served.process?.stop()
        try WatchPagePlayerTests.shows.write(toFile: served.showsFile, atomically: true, encoding: .utf8)
        // An ephemeral UDP port: the default 127.0.0.1:8189 may be another serve's, and then WHIP is left off.
        served.serveArguments = ["--webrtc-listen", "127.0.0.1:0"]
        try served.start()
        try WatchPageWebRTCPeers.script.write(toFile: served.work.file("watch_webrtc.py"), atomically: true,
                                              encoding: .utf8)
        let result = try Subprocess.run("python3", [
            served.work.file("watch_webrtc.py"), "http://127.0.0.1:\(served.httpPort)", served.secretFile,
            try StreamExecutable.url().path, served.work.path,
        ], timeout: 180)
        #expect(result.status == 0, "\(result.stdout.suffix(2000)) \(result.stderr.suffix(4000))")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((report?["checks"] as? Int ?? 0) >= 18, "\(line)")
        print("watch page over WebRTC: \(line)")
        // STREAM_WEBRTC_SCREENSHOTS=DIR keeps the host's page (two tiles, the main choice) and a viewer's (the screen
        // open beside the main picture) as watch-host.png and watch-viewer.png (docs/images has them).
        if let keep = ProcessInfo.processInfo.environment["STREAM_WEBRTC_SCREENSHOTS"] {
            for name in ["watch-host.png", "watch-viewer.png"] {
                try? FileManager.default.removeItem(atPath: keep + "/" + name)
                try FileManager.default.copyItem(atPath: served.work.file(name), toPath: keep + "/" + name)
            }
        }
    }

    /// A browser host (its camera a canvas with the time code burnt in) reaches a WebRTC viewer and an LL-HLS viewer
    /// waiting on their pages: the time from Go live to each one's first frame and the glass-to-glass latency of
    /// every frame after are printed (figures belong to benchmarks; the test asserts that both viewers saw the host's
    /// frames).
    @Test func aBrowserHostReachesViewersAndItsLatencyIsPrinted() throws {
        let served = try LiveShowServeTests.Served()
        served.process?.stop()
        try WatchPagePlayerTests.shows.write(toFile: served.showsFile, atomically: true, encoding: .utf8)
        served.serveArguments = ["--webrtc-listen", "127.0.0.1:0"]
        try served.start()
        try WatchPageLatencyPeers.script.write(toFile: served.work.file("watch_latency.py"), atomically: true,
                                               encoding: .utf8)
        let pattern = ScreenPattern(width: 1280, height: 720)
        func row(_ rect: (Int) -> PiPRect, bits: Int) -> [String: Any] {
            let blocks = (0..<bits).map(rect)
            return ["x": blocks.map { (Double($0.x) + Double($0.width) / 2) / 1280 },
                    "y": (Double(blocks[0].y) + Double(blocks[0].height) / 2) / 720]
        }
        let geometry: [String: Any] = [
            "timecode": row(pattern.timeCodeRect(bit:), bits: ScreenPattern.timeCodeBits),
            "frame": row(pattern.blockRect(bit:), bits: ScreenPattern.frameNumberBits),
            "block": Double(pattern.blockSize) / 1280,
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: geometry), as: UTF8.self)
        let environment = ProcessInfo.processInfo.environment
        let result = try Subprocess.run("python3", [
            served.work.file("watch_latency.py"), "http://127.0.0.1:\(served.httpPort)", served.secretFile,
            served.work.path, json, environment["STREAM_WATCH_SECONDS"] ?? "8", HLSPeers.directory,
        ], timeout: 180)
        #expect(result.status == 0, "\(result.stdout.suffix(2000)) \(result.stderr.suffix(4000))")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        print("browser host to browser viewers: \(line)")
        #expect((report?["webrtcFrames"] as? Int ?? 0) > 30, "the WebRTC viewer read the host's frames: \(line)")
        #expect((report?["hlsFrames"] as? Int ?? 0) > 30, "the LL-HLS viewer read the host's frames: \(line)")
        #expect((report?["webrtcMode"] as? String)?.hasPrefix("WebRTC") == true, "\(line)")
        #expect((report?["hlsMode"] as? String)?.hasPrefix("LL-HLS") == true, "\(line)")
        #expect((report?["errors"] as? [String])?.isEmpty == true, "\(line)")
    }
}
