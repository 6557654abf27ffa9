import Foundation
import TestSupport
import Testing

/// Replays on a real `stream serve --shows --record-dir`: ffmpeg publishes 8 s into a private show with the host's
/// key and the host ends the show; its replay is listed at `GET /v1/streams/{name}/recordings`, ffprobe reads its VOD
/// playlist over HTTP (duration) and seeks in it, the list, playlist and file are refused to whoever may not watch the
/// show as its live video is, and Chromium plays the replay from the watch page and seeks in it.
@Suite(.serialized, .startsPeers) struct ReplayServeTests {
    @Test func aShowsReplayIsListedPlaysInFFprobeAndChromiumAndSeeks() throws {
        let recordings = try TemporaryDirectory("replays")
        let served = try LiveShowServeTests.Served(serveArguments: ["--record-dir", recordings.path])
        try ReplayServePeers.script.write(toFile: served.work.file("replay.py"), atomically: true, encoding: .utf8)
        let summary = try served.python("replay.py", [served.work.path], timeout: 180)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any],
                                  "no summary: \(summary)")
        #expect((report["checks"] as? Int ?? 0) >= 20, "\(summary)")
        let replays = try FileManager.default.contentsOfDirectory(atPath: recordings.file("replays/private%3Avod"))
        #expect(replays.count == 1 && replays[0].hasSuffix(".mp4"), "\(replays)")
        print("replay: \(summary)")
    }
}
