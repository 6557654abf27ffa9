import Foundation
import TestSupport
import Testing

/// `stream serve` recording onto a small tmpfs that fills up (CI runs as root and can mount one): the full disk
/// is said in plain words when it happens, the file is closed at its last whole tag, the stream keeps being
/// relayed, no empty file is left, and recording starts again in a new file once space is freed.
@Suite(.serialized) struct ServeFullDiskTests {
    /// `stream serve` recording to `directory`, its configuration, data and home in `work`, its output read line
    /// by line.
    static func serve(recordingTo directory: String, work: TemporaryDirectory) throws
        -> (process: BackgroundProcess, lines: Lines, port: Int) {
        let port = try FreePort.next()
        let process = try BackgroundProcess(try StreamExecutable.url().path,
                                            ["serve", "--listen", "127.0.0.1:\(port)", "--no-http",
                                             "--record-dir", directory],
                                            environment: TemporaryConfigHome.environment(in: work.path))
        let lines = Lines(of: process)
        try FreePort.waitUntilListening(port)
        return (process, lines, port)
    }

    @Test func aFullDiskIsSaidClosedCleanlyAndRecordingResumesWhenSpaceReturns() async throws {
        let disk = try TmpfsMount(sizeBytes: 16 << 20)
        let records = disk.file("records")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: false)
        let work = try TemporaryDirectory("full-disk")
        // 14 s at 2 Mbit/s: 3.5 MB, with a keyframe every second.
        let fixture = try MediaFixture.makeNoisyFLV(in: work, seconds: 14, size: "640x360", megabitsPerSecond: 2,
                                                    audio: true)
        let filler = try disk.fill(leaving: 1 << 20)
        let server = try Self.serve(recordingTo: records, work: work)
        defer { server.process.stop() }
        let url = "rtmp://127.0.0.1:\(server.port)/live/full-disk"
        async let publisher = offPool {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", url],
                               timeout: 60)
        }

        // About half a second of the stream fits: the server says so as it happens.
        _ = try await server.lines.wait(for: "the disk is full", timeout: .seconds(20))
        // The stream is still relayed: a player joining now gets pictures.
        let played = work.file("played.flv")
        let player = try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", url, "-t", "2", "-c", "copy", played],
                                        timeout: 20)
        #expect(player.status == 0, "\(player.stderr)")
        #expect((try ProbeReport.probe(played).video?.frameCount ?? 0) >= 45)
        // Space returns: recording starts again in a new file, at a keyframe.
        try FileManager.default.removeItem(atPath: filler)
        // "recording to" lines: the first file, its failure ("recording to FILE failed: ..."), the new file.
        _ = try await server.lines.wait(for: "recording to", count: 3, timeout: .seconds(10))
        let push = try await publisher
        #expect(push.status == 0, "\(push.stderr)")
        _ = try await server.lines.wait(for: "recording finished", timeout: .seconds(10))

        let log = server.lines.text
        #expect(!log.contains("Error Domain") && !log.contains("NSCocoaErrorDomain"), "\(log)")
        let files = NginxRTMP.flvFiles(in: records)
        #expect(files.count == 2, "\(files)\n\(log)")
        for file in files {
            // Each file ends at a whole tag and decodes cleanly; the second one starts with a keyframe.
            let report = try ProbeReport.probe(file)
            #expect((report.video?.frameCount ?? 0) > 15, "\(file): \(String(describing: report.video))")
            #expect(try ProbeReport.decodeErrors(file) == "", "\(file)")
        }
        let first = try ProbeReport.probe(files[0])
        #expect((first.durationSeconds ?? 0) < 6, "the first file holds what fitted, not the whole publish")

        // The disk fills up for good: a new publish leaves no empty file, and the server says why.
        try disk.fill(leaving: 0, name: "filler-2")
        let second = try Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture, "-t", "2", "-c", "copy",
                                                   "-f", "flv", url], timeout: 30)
        #expect(second.status == 0, "\(second.stderr)")
        _ = try await server.lines.wait(for: "publish stopped", count: 2, timeout: .seconds(10))
        #expect(NginxRTMP.flvFiles(in: records).count == 2, "\(NginxRTMP.flvFiles(in: records))")
        let empties = try FileManager.default.contentsOfDirectory(atPath: records).filter { name in
            (try? FileManager.default.attributesOfItem(atPath: "\(records)/\(name)")[.size] as? Int) == 0
        }
        #expect(empties.isEmpty, "empty files: \(empties)")
        #expect(server.lines.count(containing: "the disk is full") >= 2, "\(server.lines.text)")
        print("full disk: stream serve said\n\(server.lines.text)\nand kept " + files.map { file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            return "\(URL(fileURLWithPath: file).lastPathComponent) (\(size) bytes)"
        }.joined(separator: ", "))
    }

    @Test func aRecordDirectoryThatCannotBeWrittenIsReportedAtStart() throws {
        let disk = try TmpfsMount(sizeBytes: 1 << 20)
        try disk.remount(readOnly: true)
        let home = try TemporaryConfigHome()
        let result = try Subprocess.run(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:0", "--no-http", "--record-dir", disk.path, "--duration", "3",
        ], timeout: 20, environment: home.environment)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("cannot record to \(disk.path): the disk is read-only"), "\(result.stderr)")
        #expect(!result.stdout.contains("Publish to"), "the server must not start: \(result.stdout)")
    }
}
