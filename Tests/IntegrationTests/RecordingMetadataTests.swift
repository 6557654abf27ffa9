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
        // ffmpeg announces 20 s in its onMetaData; the server is stopped about 4 s in. ffmpeg is waited for off the
        // cooperative pool: a detached task blocked in Subprocess.run held one of its 2 threads for the whole 20 s,
        // and with another test's blocking call holding the other, the sleep below resumed only after ffmpeg ended.
        async let publisher = offPool("ffmpeg-publisher") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-t", "20", "-c", "copy", "-f", "flv",
                                          "rtmp://127.0.0.1:\(port)/live/cut-short"], timeout: 40)
        }
        let deadline = ContinuousClock.now + .seconds(15)
        while !running.log.all.contains(where: { if case .publishStarted = $0 { true } else { false } })
                && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(4))
        running.server.stop()
        _ = try await publisher

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
        #expect(properties["duration"]?.numberValue == duration)
        // The publisher's other properties are kept.
        #expect(properties["width"]?.numberValue == 320 && properties["encoder"]?.stringValue != nil)
        #expect(try ProbeReport.decodeErrors(recording) == "")
    }
}
