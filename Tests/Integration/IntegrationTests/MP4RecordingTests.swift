import Foundation
import TestSupport
import Testing

/// `stream serve --record-format mp4`: a publish is recorded as fragmented MP4 that ffmpeg decodes to the very
/// frames the publisher sent.
@Suite(.serialized) struct MP4RecordingTests {
    @Test func servePublishesAreRecordedAsMP4() async throws {
        let work = try TemporaryDirectory("mp4-record")
        let records = work.file("records")
        let fixture = try MediaFixture.makeFLVWithBFrames(in: work, seconds: 4, gop: 30)
        let port = try FreePort.next()
        let server = try BackgroundProcess(try StreamExecutable.url().path,
                                           ["serve", "--listen", "127.0.0.1:\(port)", "--no-http",
                                            "--record-dir", records, "--record-format", "mp4"],
                                           environment: TemporaryConfigHome.environment(in: work.path))
        defer { server.stop() }
        let lines = Lines(of: server)
        try FreePort.waitUntilListening(port)
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv",
                                                 "rtmp://127.0.0.1:\(port)/live/mp4-secret"], timeout: 60)
        #expect(push.status == 0, "\(push.stderr)")
        _ = try await lines.wait(for: "recording finished", timeout: .seconds(10))
        let files = try FileManager.default.contentsOfDirectory(atPath: records).filter { $0.hasSuffix(".mp4") }
        #expect(files.count == 1, "\(files)\n\(lines.text)")
        let recording = records + "/" + (files.first ?? "")
        #expect(!recording.contains("mp4-secret") && !lines.text.contains("mp4-secret"))
        #expect(try ProbeReport.decodeErrors(recording) == "")
        #expect(try ProbeReport.frameHashes(recording, stream: "v") == ProbeReport.frameHashes(fixture, stream: "v"))
        #expect(try ProbeReport.probe(recording).audio?.codecName == "aac")
    }

    @Test func anUnknownFormatIsAUsageError() throws {
        let home = try TemporaryConfigHome()
        let result = try Subprocess.run(try StreamExecutable.url().path,
                                        ["serve", "--no-http", "--record-format", "mkv"], timeout: 10,
                                        environment: home.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--record-format mkv is not flv or mp4"), "\(result.stderr)")
    }
}
