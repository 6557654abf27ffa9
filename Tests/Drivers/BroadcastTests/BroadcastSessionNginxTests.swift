import Broadcast
import Engine
import Foundation
import Media
import Publisher
import StreamCore
import TestSupport
import Testing

extension LiveBroadcastTests {
    /// Broadcasts of the test sources to real nginx-rtmp (RTMP and RTMPS), checked with ffprobe/ffmpeg on nginx's
    /// recording.
    @Suite struct BroadcastSessionNginxTests {
        private static func broadcast(to url: String, key: String, settings: StreamSettings, screen: PixelSize,
                                      seconds: Int, options: RTMPClient.Options = RTMPClient.Options()) async throws
            -> (BroadcastState, BroadcastStatistics, PipelineStatistics) {
            let sink = RTMPSink(url: try IngestURL(parsing: url), streamKey: key, options: options)
            let configuration = BroadcastConfiguration(settings: settings, screenSize: screen,
                                                       duration: .seconds(seconds))
            let session = try BroadcastSession(configuration: configuration, outputs: [BroadcastOutput(sink: sink)])
            let final = await session.run()
            return (final, session.statistics, session.pipelineStatistics)
        }

        @Test func broadcast720p30WithPiPIsRecordedByNginx() async throws {
            let nginx = try NginxRTMP()
            let work = try TemporaryDirectory()
            var settings = StreamSettings.defaults(for: .p720, frameRate: .fps30)
            settings.videoBitrateKbps = 2500
            settings.pipEnabled = true
            settings.pipCorner = .bottomRight
            settings.pipScale = 0.25
            settings.cameraPosition = .front
            // A 1280×720 source (short edge 720, 16:9) keeps the debug build's per-frame work well inside 33 ms on
            // a 2-core CI machine; scaling from larger sources is covered by the smaller broadcasts and the demo.
            let (final, statistics, pipeline) = try await Self.broadcast(
                to: nginx.rtmpURL, key: "session720", settings: settings,
                screen: PixelSize(width: 1280, height: 720), seconds: 10)
            nginx.stop()
            #expect(final == .ended(.durationReached), "\(final)")
            let recording = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
            let report = try ProbeReport.probe(recording)
            let video = try #require(report.video)
            #expect(video.codecName == "h264")
            #expect(video.width == 1280 && video.height == 720)
            let fps = try #require(video.averageFrameRate)
            #expect(abs(fps - 30) < 1.5, "average frame rate \(fps)")
            let audio = try #require(report.audio)
            #expect(audio.codecName == "aac" && audio.sampleRate == 48_000)

            let packets = try MediaInspection.videoPackets(recording)
            #expect(statistics.framesEncoded + statistics.framesSkippedLate == 300)
            #expect(abs(packets.count - statistics.framesEncoded) <= 1, "\(packets.count) video packets")
            // ~30 fps delivered: frames skipped because the machine could not keep real time stay under 10 %.
            let deliveredFPS = Double(packets.count) / 10
            #expect(deliveredFPS >= 27, "\(deliveredFPS) fps delivered, \(statistics.framesSkippedLate) skipped late")
            let keyTimes = packets.filter(\.isKeyframe).map(\.time)
            let gaps = zip(keyTimes.dropFirst(), keyTimes).map { $0 - $1 }
            #expect(gaps.count >= 3 && gaps.allSatisfy { abs($0 - 2) < 0.1 },
                    "keyframe gaps \(gaps), \(statistics.framesSkippedLate) frames skipped")
            let kbps = MediaInspection.videoKbps(packets)
            #expect(abs(kbps - 2500) / 2500 < 0.2, "video bitrate \(kbps) kbps")
            let volume = try MediaInspection.meanVolume(recording)
            #expect(volume > -30, "mean volume \(volume) dB")

            // The camera picture sits at the bottom-right, mirrored; the screen shows around it and in its cut corner.
            let rect = PiPLayout.rect(frameWidth: 1280, frameHeight: 720, cameraWidth: 640, cameraHeight: 480,
                                      corner: .bottomRight, scale: 0.25)
            let frame = try MediaInspection.frame(recording, at: 5, width: 1280, height: 720, in: work)
            let middle = rect.y + rect.height / 2
            // Mirrored: the camera's blue left band shows on the picture's right.
            let band = frame.pixel(rect.x + rect.width * 7 / 8, middle)
            #expect(band.b > 150 && band.r < 100 && band.g < 100, "expected the blue band, got \(band)")
            // Camera x 3/8 (green background, left of the stripe's half) shows at picture x 5/8.
            let green = frame.pixel(rect.x + rect.width * 5 / 8, middle)
            #expect(green.g > 150 && green.r < 100 && green.b < 100, "expected the green background, got \(green)")
            // The rounded corner's cut-out shows the screen (red bar at this x), not the camera.
            let corner = frame.pixel(rect.x + 3, rect.y + 3)
            #expect(corner.r > 120 && corner.g < 80 && corner.b < 80, "expected the screen's red bar, got \(corner)")
            // Outside the picture: the screen's bars.
            let outside = frame.pixel(rect.x - 20, middle)
            #expect(!(outside.g > 150 && outside.r < 100 && outside.b < 100), "camera leaked outside: \(outside)")

            #expect(pipeline.framesComposited == statistics.framesEncoded)
            #expect(pipeline.screenPool.allocations <= 3 && pipeline.encodePool.allocations <= 4)
            #expect(pipeline.cameraPool.allocations <= 3)
        }

        @Test func broadcastOverRTMPSIsRecordedByNginx() async throws {
            let nginx = try NginxRTMP(tls: true)
            let url = try #require(nginx.rtmpsURL)
            var settings = StreamSettings.defaults(for: .p480, frameRate: .fps24)
            settings.videoBitrateKbps = 500
            let (final, statistics, _) = try await Self.broadcast(
                to: url, key: "tls", settings: settings, screen: PixelSize(width: 640, height: 360), seconds: 3,
                options: RTMPClient.Options(caFile: nginx.certificate?.certificateFile))
            nginx.stop()
            #expect(final == .ended(.durationReached), "\(final)")
            let recording = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
            let report = try ProbeReport.probe(recording)
            #expect(report.video?.codecName == "h264" && report.video?.width == 640 && report.video?.height == 360)
            #expect(report.audio?.codecName == "aac")
            #expect(statistics.framesEncoded + statistics.framesSkippedLate == 72 && statistics.framesEncoded >= 54)
            #expect(abs((report.video?.frameCount ?? 0) - statistics.framesEncoded) <= 1)
            #expect(try ProbeReport.decodeErrors(recording).isEmpty)
        }

        @Test func refusedConnectionFailsWithARedactedReason() async throws {
            let port = try FreePort.next()
            let (final, _, _) = try await Self.broadcast(
                to: "rtmp://127.0.0.1:\(port)/live", key: "secret-key-123", settings: .defaults(for: .p480),
                screen: PixelSize(width: 320, height: 180), seconds: 2)
            guard case .failed(let error) = final else {
                Issue.record("expected a failure, got \(final)")
                return
            }
            #expect(!error.message.contains("secret-key-123"))
            #expect(error.message.contains("127.0.0.1"))
        }
    }
}
