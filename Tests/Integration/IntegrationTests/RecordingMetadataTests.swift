import AMF
import FLV
import Foundation
import IngestServer
import TestSupport
import Testing

/// The server's recordings carry the duration and size of what was actually written (patched into onMetaData
/// when the file is closed, as ffmpeg's FLV muxer does), not what the publisher announced.
@Suite(.serialized) struct RecordingMetadataTests {
    /// The first onMetaData of an FLV file, as AMF0 properties.
    static func metadata(of path: String) throws -> AMF0Object? {
        for tag in try FLVPublishing.tags(of: path) where tag.type == .scriptData {
            let values = try AMF0.decodeAll(tag.body)
            if values.first?.stringValue == FLVMetadata.handlerName { return values.dropFirst().first?.objectValue }
        }
        return nil
    }

    @Test func aPublishCutShortIsRecordedWithItsRealDurationAndSize() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 20, size: "320x240", fps: 30, gop: 30)
        // ffmpeg announces 20 s in its onMetaData; the server is stopped about 4 s in. Both waits are on threads of
        // their own: run in parallel beside tests that block the cooperative pool's 2 threads (a detached task in
        // Subprocess.run held one for this whole publish), a sleep on the pool resumed only after the 20 s.
        let publisher = OffPoolTask("ffmpeg-publisher") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-t", "20", "-c", "copy", "-f", "flv",
                                          "rtmp://127.0.0.1:\(port)/live/cut-short"], timeout: 40)
        }
        let (server, log) = (running.server, running.log)
        try await offPool("stop-timer") {
            guard log.waitForPublish(seconds: 15) else { return }
            Thread.sleep(forTimeInterval: 4)
            server.stop()
        }
        _ = try await publisher.value

        let recording = try #require(try running.recordingFiles().first, "\(running.log.text)")
        let probed = try ProbeReport.probe(recording)
        let videoTimes = try ProbeReport.packetTimes(recording, stream: "v:0")
        let span = try #require(videoTimes.max()) - (videoTimes.min() ?? 0) + 1.0 / 30
        let duration = try #require(probed.durationSeconds)
        #expect(span > 3 && span < 8, "\(span) s of video")
        #expect(abs(duration - span) < 0.25, "ffprobe says \(duration) s for \(span) s of video (ffmpeg announced 20)")
        let properties = try #require(try Self.metadata(of: recording))
        let size = try FileManager.default.attributesOfItem(atPath: recording)[.size] as? Int
        #expect(properties["filesize"]?.numberValue == size.map(Double.init), "\(properties)")
        // ffprobe reads onMetaData's duration into whole microseconds, truncating (4.087 s is printed 4.086999).
        let recorded = try #require(properties["duration"]?.numberValue, "\(properties)")
        #expect(abs(recorded - duration) < 0.000_002, "onMetaData says \(recorded) s, ffprobe \(duration) s")
        // The publisher's other properties are kept.
        #expect(properties["width"]?.numberValue == 320 && properties["encoder"]?.stringValue != nil)
        #expect(try ProbeReport.decodeErrors(recording) == "")
    }
}
