import FLV
import Foundation
import StreamCLI
import TestSupport
import Testing

/// `stream broadcast` and `stream demo`, run in-process against real peers (nginx-rtmp, the built-in server).
@Suite(.serialized) struct BroadcastCommandTests {
    private struct Run {
        var exitCode: Int32
        var output: String
        var error: String
    }

    private static func stream(_ arguments: [String], stdin: String = "", home: TemporaryDirectory) -> Run {
        let capture = ConsoleCapture(input: stdin)
        let environment = ["XDG_CONFIG_HOME": home.path, "HOME": home.path, "TERM": "dumb"]
        let code = StreamCLIMain.run(["stream"] + arguments, console: capture.console, environment: environment)
        return Run(exitCode: code, output: capture.output, error: capture.error)
    }

    private static let small = ["--quality", "480", "--fps", "24", "--test-size", "320x180", "--video-bitrate", "400"]

    @Test func recordsOnlyWithoutAnIngest() throws {
        let home = try TemporaryDirectory()
        let file = home.file("only.flv")
        let run = Self.stream(["broadcast", "--record", file, "--duration", "2", "--pip", "on"] + Self.small,
                              home: home)
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(run.output.contains("ended (duration reached)"))
        let report = try ProbeReport.probe(file)
        #expect(report.video?.codecName == "h264" && report.video?.width == 320 && report.video?.height == 180)
        // 48 frames in real time; a busy machine skips (and counts) some rather than drift.
        #expect((34...49).contains(report.video?.frameCount ?? 0), "\(String(describing: report.video?.frameCount))")
        #expect(report.audio?.codecName == "aac")
    }

    @Test func publishesToNginxAndRecordsWithTheKeyFromStdin() throws {
        let nginx = try NginxRTMP()
        let home = try TemporaryDirectory()
        let file = home.file("copy.flv")
        let run = Self.stream(["broadcast", nginx.rtmpURL, "--key-stdin", "--record", file, "--duration", "2"]
                                + Self.small, stdin: "cli-secret-key\n", home: home)
        nginx.stop()
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(!(run.output + run.error).contains("cli-secret-key"))
        let published = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
        #expect(try ProbeReport.probe(published).video?.width == 320)
        #expect(try ProbeReport.probe(file).video?.width == 320)
    }

    /// A file named .mp4 is recorded as fragmented MP4 (H.264 and AAC), which ffmpeg decodes cleanly; WHIP's Opus
    /// cannot go into it, which is said before anything starts.
    @Test func aRecordingNamedMP4IsMP4() throws {
        let home = try TemporaryDirectory()
        let file = home.file("show.mp4")
        let run = Self.stream(["broadcast", "--record", file, "--duration", "2"] + Self.small, home: home)
        #expect(run.exitCode == 0, "\(run.error)")
        let report = try ProbeReport.probe(file)
        #expect(report.video?.codecName == "h264" && report.audio?.codecName == "aac")
        #expect((34...49).contains(report.video?.frameCount ?? 0), "\(String(describing: report.video))")
        #expect(try ProbeReport.decodeErrors(file) == "")
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: file)).readData(ofLength: 8)
        #expect(String(decoding: header.suffix(4), as: UTF8.self) == "ftyp")

        let whip = Self.stream(["broadcast", "http://127.0.0.1:9/whip", "--token-stdin", "--record",
                                home.file("whip.mp4"), "--duration", "1"], stdin: "token\n", home: home)
        #expect(whip.exitCode == 2, "\(whip.error)")
        #expect(whip.error.contains("MP4 recordings take AAC audio and WHIP sends Opus"), "\(whip.error)")
    }

    @Test func anExistingRecordingIsNeverOverwritten() throws {
        let home = try TemporaryDirectory()
        let file = home.file("yesterday.flv")
        try Data("yesterday's show".utf8).write(to: URL(fileURLWithPath: file))
        let run = Self.stream(["broadcast", "--record", file, "--duration", "1"] + Self.small, home: home)
        #expect(run.exitCode == 2, "\(run.output)\(run.error)")
        #expect(run.error.contains("--record \(file): the file exists"), "\(run.error)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "yesterday's show")
    }

    /// `--record` onto a disk that fills up (a small tmpfs: CI runs as root) while publishing to nginx-rtmp: the
    /// recording stops with the reason in plain words, the file is kept up to its last whole tag with its real
    /// duration, and the broadcast to the ingest goes on to the end.
    @Test func aRecordingOnAFullDiskStopsCleanlyWhileTheBroadcastGoesOn() throws {
        let nginx = try NginxRTMP()
        let home = try TemporaryDirectory()
        let disk = try TmpfsMount(sizeBytes: 2 << 20)
        try disk.fill(leaving: 200_000)
        let file = disk.file("full.flv")
        let run = Self.stream(["broadcast", nginx.rtmpURL, "--key-stdin", "--record", file, "--duration", "4",
                               "--quality", "480", "--fps", "24", "--test-size", "320x180", "--video-bitrate", "1500"],
                              stdin: "full-disk-key\n", home: home)
        nginx.stop()
        let said = run.output + run.error
        #expect(run.exitCode == 1, "the recording failed, so the broadcast did not end as asked: \(said)")
        #expect(run.error.contains("record \(file) failed: recording to \(file) stopped: the disk is full; the file "
                                    + "was closed at its last whole tag"), "\(said)")
        #expect(!said.contains("full-disk-key"))
        // The ingest got the whole broadcast: about 4 s, not the second or so the disk held.
        let published = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
        #expect((try ProbeReport.probe(published).durationSeconds ?? 0) > 3, "\(said)")
        // The file plays to its end and says how long it is.
        let tags = try FLVTags.of(file)
        #expect(tags.contains { $0.type == .video && !$0.isSequenceHeader }, "no frame was recorded")
        #expect(try ProbeReport.decodeErrors(file) == "")
        let kept = try ProbeReport.probe(file).durationSeconds ?? 0
        #expect(kept > 0 && kept < 3, "\(kept) s kept")
    }

    @Test func aRefusedConnectionExitsOneWithTheReasonAndNoKey() throws {
        let home = try TemporaryDirectory()
        let port = try FreePort.next()
        let run = Self.stream(["broadcast", "rtmp://127.0.0.1:\(port)/live", "--key-stdin", "--duration", "2"]
                                + Self.small, stdin: "refused-secret\n", home: home)
        #expect(run.exitCode == 1)
        #expect(run.error.contains("broadcast failed") && run.error.contains("127.0.0.1"), "\(run.error)")
        #expect(!(run.output + run.error).contains("refused-secret"))
    }

    @Test(arguments: [
        (["broadcast", "--source", "screen", "--record", "x.flv"], "--source screen needs an X display"),
        (["broadcast", "--camera", "usb0", "--record", "x.flv"], "--camera usb0 is not a camera"),
        (["broadcast", "--duration", "2"], "nothing to broadcast to"),
        (["broadcast", "--test-size", "12x12", "--record", "x.flv"], "--test-size"),
        (["broadcast", "--pip-corner", "middle", "--record", "x.flv"], "middle"),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) throws {
        let home = try TemporaryDirectory()
        let run = Self.stream(arguments, home: home)
        #expect(run.exitCode == 2)
        #expect(run.error.contains(message), "\(run.error)")
    }

    @Test func aMissingY4MCameraFileFailsWithItsPath() throws {
        let home = try TemporaryDirectory()
        let run = Self.stream(["broadcast", "--pip", "on", "--camera", "y4m:\(home.file("none.y4m"))", "--record",
                               home.file("x.flv")] + Self.small, home: home)
        #expect(run.exitCode == 1)
        #expect(run.error.contains("none.y4m"), "\(run.error)")
    }

    @Test func demoRunsEndToEnd() throws {
        let home = try TemporaryDirectory()
        let directory = home.file("demo")
        let run = Self.stream(["demo", "--duration", "3", "--quality", "480", "--test-size", "640x360",
                               "--output", directory], home: home)
        #expect(run.exitCode == 0, "\(run.error)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("Recording: ") })
        let path = String(line.dropFirst("Recording: ".count))
        #expect(path.hasPrefix(directory) && path.hasSuffix(".mp4"), "\(path)")
        #expect(run.output.contains("ffplay \(path)"))
        // The show's watch page was printed; the host's ingest key (live_…) never was.
        let watch = run.output.split(separator: "\n").first { $0.hasPrefix("Watch it live") } ?? ""
        #expect(watch.hasSuffix("/watch/demo") && watch.contains(" http://127.0.0.1:"), "\(run.output)")
        #expect(!run.output.contains("live_") && !run.error.contains("live_"))
        let report = try ProbeReport.probe(path)
        #expect(report.video?.codecName == "h264" && report.video?.width == 640 && report.video?.height == 360)
        #expect(report.audio?.codecName == "aac")
        #expect(report.formatName?.contains("mp4") == true, "\(String(describing: report.formatName))")
        #expect((63...91).contains(report.video?.frameCount ?? 0), "\(String(describing: report.video?.frameCount))")
    }

    @Test func demoRecordsUnderTheDataDirectoryNotTheWorkingDirectory() throws {
        let home = try TemporaryDirectory()
        let before = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        let run = Self.stream(["demo", "--duration", "2", "--quality", "480", "--test-size", "320x180"], home: home)
        #expect(run.exitCode == 0, "\(run.error)")
        // No XDG_DATA_HOME in this environment: $HOME/.local/share/stream/demo, said where it is.
        let directory = home.file(".local/share/stream/demo")
        #expect(run.output.contains("recording to \(directory)"), "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("Recording: ") })
        #expect(line.dropFirst("Recording: ".count).hasPrefix(directory))
        let after = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        #expect(Set(after) == Set(before), "the demo wrote into the working directory")
    }

    @Test func severalDestinationsTakeTheirKeysFromStdinInOrder() throws {
        let first = try NginxRTMP()
        let second = try NginxRTMP()
        let home = try TemporaryDirectory()
        let run = Self.stream(["broadcast", "--key-stdin", first.rtmpURL, second.rtmpURL, "--duration", "2",
                               "--pip", "off"] + Self.small, stdin: "first-key-1\nsecond-key-2\n", home: home)
        first.stop()
        second.stop()
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(!run.output.contains("first-key-1") && !run.output.contains("second-key-2"))
        // Each ingest recorded its own key's stream (nginx names the file after it).
        let firstFile = try #require(first.recordings().first, "\(first.errorLog)")
        let secondFile = try #require(second.recordings().first, "\(second.errorLog)")
        #expect(firstFile.contains("first-key-1") && secondFile.contains("second-key-2"))
        for file in [firstFile, secondFile] {
            #expect(try ProbeReport.probe(file).video?.width == 320)
        }
        // One line per destination in the summary.
        #expect(run.output.contains("  rtmp://127.0.0.1:\(first.port)/live/••••: ended (stopped), 0 dropped"))
        #expect(run.output.contains("  rtmp://127.0.0.1:\(second.port)/live/••••: ended (stopped), 0 dropped"))
    }

    @Test func aMissingKeyForTheSecondDestinationIsAUsageError() throws {
        let home = try TemporaryDirectory()
        let run = Self.stream(["broadcast", "--key-stdin", "rtmp://127.0.0.1:1/live", "rtmp://127.0.0.1:2/live",
                               "--duration", "1"], stdin: "only-one-key\n", home: home)
        #expect(run.exitCode == 2, "\(run.output) \(run.error)")
        #expect(run.error.contains("destination 2"), "\(run.error)")
        #expect(!run.error.contains("only-one-key"))
    }
}
