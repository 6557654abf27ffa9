import Foundation
import TestSupport
import Testing

/// Replays on a real `stream serve --shows --record-dir`: ffmpeg publishes 8 s into a private show with the host's
/// key and the host ends the show; its replay is listed at `GET /v1/streams/{name}/recordings`, ffprobe reads its VOD
/// playlist over HTTP (duration) and seeks in it, the list, playlist and file are refused to whoever may not watch the
/// show as its live video is, and Chromium plays the replay from the watch page and seeks in it. Then retention.
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

    /// `--recordings-keep-days` and `--recordings-keep` at start: the publishes' files and each show's replays past
    /// the limits go, with a line each; files being neither `.flv` nor `.mp4` stay.
    @Test func retentionDeletesOldRecordingsAtStartAndSaysWhich() throws {
        let work = try TemporaryDirectory("retention")
        let directory = work.file("recordings")
        let replays = directory + "/replays/show%3Aa"
        try FileManager.default.createDirectory(atPath: replays, withIntermediateDirectories: true)
        let now = Date()
        let files: [(String, TimeInterval)] = [
            ("live-0a1b2c3d-20261101-100000.flv", -10 * 86_400),  // older than 7 days
            ("live-0a1b2c3d-20261206-100000.flv", -3600),
            ("notes.txt", -30 * 86_400),  // not a recording
            ("replays/show%3Aa/replay-main-20261207-100000.mp4", -3 * 3600),  // past the newest 2
            ("replays/show%3Aa/replay-main-20261207-110000.mp4", -2 * 3600),
            ("replays/show%3Aa/replay-main-20261207-120000.mp4", -1 * 3600),
        ]
        for (name, age) in files {
            let path = directory + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data([0])))
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(age)], ofItemAtPath: path)
        }
        let result = try Subprocess.run(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:0", "--no-http", "--metrics-listen", "off", "--record-dir", directory,
            "--recordings-keep-days", "7", "--recordings-keep", "2", "--duration", "0.5",
        ], timeout: 30, environment: TemporaryConfigHome.environment(in: work.path))
        #expect(result.status == 0, "\(result.stderr)")
        let left = Set(try FileManager.default.subpathsOfDirectory(atPath: directory))
        #expect(left == ["live-0a1b2c3d-20261206-100000.flv", "notes.txt", "replays", "replays/show%3Aa",
                         "replays/show%3Aa/replay-main-20261207-110000.mp4",
                         "replays/show%3Aa/replay-main-20261207-120000.mp4"], "\(left)")
        let lines = result.stdout.split(separator: "\n").filter { $0.contains("recordings: deleted") }
        #expect(lines.count == 2, "\(result.stdout)")
        #expect(lines.contains { $0.hasSuffix("live-0a1b2c3d-20261101-100000.flv (older than 7 days)") },
                "\(lines)")
        #expect(lines.contains { $0.hasSuffix("replay-main-20261207-100000.mp4 (past the newest 2 of its folder)") },
                "\(lines)")
    }

    @Test(arguments: [
        (["--recordings-keep-days", "0"], "--recordings-keep-days must be a number of days above 0"),
        (["--recordings-keep-days", "soon"], "not 'soon'"),
        (["--recordings-keep", "2.5"], "--recordings-keep must be a whole number from 1 to 1000000, not '2.5'"),
        (["--no-record", "--recordings-keep", "3"], "--recordings-keep deletes old recordings: it has nothing to do "
            + "with --no-record"),
    ])
    func badRetentionValuesAreRefusedWithTheirFlag(arguments: [String], message: String) throws {
        let work = try TemporaryDirectory("retention-args")
        let result = try Subprocess.run(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:0", "--no-http", "--metrics-listen", "off",
            "--record-dir", work.file("recordings"), "--duration", "0.5",
        ] + arguments, timeout: 30, environment: TemporaryConfigHome.environment(in: work.path))
        #expect(result.status == 2, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("recordings")),
                "the recording directory was made before the arguments were checked")
    }
}
