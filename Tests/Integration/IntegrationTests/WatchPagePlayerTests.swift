import Foundation
import TestSupport
import Testing

/// The watch page's player controls and the show's words, in Debian's Chromium (Playwright) against a real
/// `stream serve --shows` whose host publishes `stream broadcast --source test` (issue 34 item 12: a viewer from
/// Owncast or Twitch expects a volume control, a way back to live, and the show's title and description).
@Suite(.serialized, .startsPeers) struct WatchPagePlayerTests {
    /// `show:{id}` with a title and a description (markup in it must stay text), `bare:{id}` without.
    static let shows = """
        {"streams": [
          {"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer", "reactions": true,
           "title": "Mugs & {id} <live>", "description": "Line one <b>not bold</b>\\nLine two"},
          {"pattern": "bare:{id}", "hosts": ["ann"], "visitors": "viewer"}
        ]}
        """

    @Test func volumeIsRememberedGoLiveCatchesUpAndTheTitleAndDescriptionShow() throws {
        let served = try LiveShowServeTests.Served()
        served.process?.stop()
        try Self.shows.write(toFile: served.showsFile, atomically: true, encoding: .utf8)
        try served.start()
        try WatchPagePlayerPeers.script.write(toFile: served.work.file("watch_player.py"), atomically: true,
                                              encoding: .utf8)
        let result = try Subprocess.run("python3", [
            served.work.file("watch_player.py"), "http://127.0.0.1:\(served.httpPort)", served.secretFile,
            try StreamExecutable.url().path, served.work.path,
        ], timeout: 150)
        #expect(result.status == 0, "\(result.stdout.suffix(2000)) \(result.stderr.suffix(4000))")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((report?["checks"] as? Int ?? 0) >= 14, "\(line)")
        print("watch page player: \(line)")
    }
}
