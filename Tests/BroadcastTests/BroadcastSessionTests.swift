import Broadcast
import Foundation
import StreamCore
import TestSupport
import Testing

/// The whole pipeline into a local FLV recording: no network, real encoders, checked with ffprobe.
@Suite(.serialized) struct BroadcastSessionTests {
    @Test func recordsTestSourcesInSyncAtTheLockedSize() async throws {
        let work = try TemporaryDirectory()
        let path = work.file("out.flv")
        var settings = StreamSettings.defaults(for: .p480, frameRate: .fps24)
        settings.videoBitrateKbps = 600
        settings.pipEnabled = true
        let configuration = BroadcastConfiguration(settings: settings,
                                                   screenSize: PixelSize(width: 360, height: 640),
                                                   duration: .seconds(3))
        let output = BroadcastOutput(sink: FLVFileSink(path: path))
        let session = try BroadcastSession(configuration: configuration, outputs: [output])
        #expect(session.encodeSize == PixelSize(width: 360, height: 640))
        let final = await session.run()
        #expect(final == .ended(.durationReached))
        let statistics = session.statistics
        let report = try ProbeReport.probe(path)
        let video = try #require(report.video)
        #expect(video.codecName == "h264")
        #expect(video.width == 360 && video.height == 640)
        #expect((70...72).contains(video.frameCount ?? 0), "frames: \(String(describing: video.frameCount))")
        #expect(statistics.framesEncoded + statistics.framesSkippedLate == 72)
        let audio = try #require(report.audio)
        #expect(audio.codecName == "aac" && audio.sampleRate == 48_000)
        let audioTimes = try ProbeReport.packetTimes(path, stream: "a:0")
        let videoTimes = try ProbeReport.packetTimes(path, stream: "v:0")
        let audioEnd = try #require(audioTimes.last)
        let videoEnd = try #require(videoTimes.last)
        #expect(abs(audioEnd - videoEnd) < 0.15, "audio ends at \(audioEnd) s, video at \(videoEnd) s")
        #expect(try ProbeReport.decodeErrors(path).isEmpty)
        // Steady state: every pool stays within its bound.
        #expect(statistics.screenPool.allocations <= 3)
        #expect(statistics.encodePool.allocations <= 4)
        #expect(statistics.cameraPool.allocations <= 3)
        #expect(statistics.framesComposited > 60)
    }
}
