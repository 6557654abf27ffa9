import Foundation
import TestSupport
import Testing

/// The harness itself, against ffmpeg as an independent publisher: if this fails, nothing else here can pass.
@Suite(.serialized) struct NginxHarnessTests {
    @Test func ffmpegPublishIsRecordedByNginx() throws {
        let nginx = try NginxRTMP()
        let work = try TemporaryDirectory()
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 2)
        let push = try Subprocess.run("ffmpeg", [
            "-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", "\(nginx.rtmpURL)/harness",
        ], timeout: 60)
        #expect(push.status == 0, "ffmpeg push failed: \(push.stderr)")
        nginx.stop()
        let recording = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
        let report = try ProbeReport.probe(recording)
        #expect(report.video?.codecName == "h264")
        #expect(report.audio?.codecName == "aac")
        #expect(report.video?.frameCount == 60)
    }
}
