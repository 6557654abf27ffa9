import Foundation
import TestSupport
import Testing

/// A configuration directory that cannot be written (a read-only mount: even root cannot write to it) holding a
/// corrupt settings file: reading warns and uses the defaults; saving explains why it cannot.
@Suite(.serialized, .startsPeers) struct ReadOnlyConfigTests {
    @Test func readsWarnAndUseDefaultsAndSavingExplainsWhyItCannot() throws {
        let disk = try TmpfsMount(sizeBytes: 1 << 20)
        let directory = disk.file("stream")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let blob = "\(directory)/stream.settings.v1.json"
        try "{ not json".write(toFile: blob, atomically: false, encoding: .utf8)
        try disk.remount(readOnly: true)
        let work = try TemporaryDirectory("read-only-config")
        let environment = TemporaryConfigHome.environment(in: work.path)
            .merging(["XDG_CONFIG_HOME": disk.path, "TERM": "dumb"]) { $1 }
        let stream = try StreamExecutable.url().path

        let show = try Subprocess.run(stream, ["settings", "show"], environment: environment)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("quality           720p"), "\(show.stdout)")
        #expect(show.stderr.contains("could not be used (it is not valid JSON) and could not be moved aside"),
                "\(show.stderr)")
        #expect(show.stderr.contains("defaults are used"), "\(show.stderr)")

        let recording = work.file("out.flv")
        let broadcast = try Subprocess.run(stream, ["broadcast", "--source", "test", "--duration", "1", "--record",
                                                    recording, "--test-size", "320x180", "--quality", "480"],
                                           timeout: 60, environment: environment)
        #expect(broadcast.status == 0, "\(broadcast.stderr)")
        #expect(broadcast.stderr.contains("defaults are used"), "\(broadcast.stderr)")
        #expect(FileManager.default.fileExists(atPath: recording))

        let set = try Subprocess.run(stream, ["settings", "set", "fps", "60"], environment: environment)
        #expect(set.status == 1)
        #expect(set.stderr.contains("stream: cannot save the settings to \(blob):"), "\(set.stderr)")
        #expect(set.stderr.contains("Read-only file system"), "\(set.stderr)")
        #expect(set.stderr.contains("nothing was changed"), "\(set.stderr)")
        // The corrupt file is left as it was: nothing was overwritten or lost.
        #expect(try String(contentsOfFile: blob, encoding: .utf8) == "{ not json")
    }
}
