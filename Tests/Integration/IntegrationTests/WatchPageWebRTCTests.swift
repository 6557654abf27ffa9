import Foundation
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
    }
}
