import Broadcast
import Engine
import Foundation
import IngestServer
import StreamCore
import Locking
import TestSupport
import Testing

extension LiveBroadcastTests {
    /// Broadcasts into our own ingest server (`stream serve`, in-process), including a server restart mid-stream.
    @Suite struct BroadcastSessionServeTests {
        private static func startServer(port: Int, recordDirectory: String) async throws -> (RTMPServer, Int) {
            let server = try RTMPServer(configuration: RTMPServer.Configuration(
                listen: ("127.0.0.1", port), recordDirectory: recordDirectory))
            let ports = try await server.start()
            return (server, try #require(ports.rtmp))
        }

        private static func recordings(in directory: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".flv") }.sorted()
                .map { "\(directory)/\($0)" }
        }

        @Test func broadcastIntoTheBuiltInServerIsRecorded() async throws {
            let work = try TemporaryDirectory()
            let (server, port) = try await Self.startServer(port: 0, recordDirectory: work.path)
            var settings = StreamSettings.defaults(for: .p480, frameRate: .fps30)
            settings.videoBitrateKbps = 600
            settings.pipEnabled = true
            settings.pipCorner = .topLeft
            let sink = RTMPSink(url: IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live"),
                                streamKey: "serve-key")
            let session = try BroadcastSession(
                configuration: BroadcastConfiguration(settings: settings,
                                                      screenSize: PixelSize(width: 480, height: 854),
                                                      duration: .seconds(3)),
                outputs: [BroadcastOutput(sink: sink)])
            let final = await session.run()
            server.stop()
            #expect(final == .ended(.durationReached), "\(final)")
            let recording = try #require(try Self.recordings(in: work.path).first)
            #expect(!recording.contains("serve-key"))
            let report = try ProbeReport.probe(recording)
            #expect(report.video?.codecName == "h264" && report.video?.width == 480 && report.video?.height == 854)
            let statistics = session.statistics
            #expect(statistics.framesEncoded + statistics.framesSkippedLate == 90 && statistics.framesEncoded >= 68)
            #expect(abs((report.video?.frameCount ?? 0) - statistics.framesEncoded) <= 1)
            #expect(report.audio?.codecName == "aac" && report.audio?.sampleRate == 48_000)
            #expect(try ProbeReport.decodeErrors(recording).isEmpty)
        }

        @Test func reconnectsAfterTheServerRestartsAndStartsAtAKeyframe() async throws {
            let work = try TemporaryDirectory()
            let (first, port) = try await Self.startServer(port: 0, recordDirectory: work.path)
            let server = Locked<RTMPServer?>(first)
            var settings = StreamSettings.defaults(for: .p480, frameRate: .fps24)
            settings.videoBitrateKbps = 400
            let sink = RTMPSink(url: IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live"),
                                streamKey: "restart")
            let configuration = BroadcastConfiguration(
                settings: settings, screenSize: PixelSize(width: 320, height: 180), duration: .seconds(7))
            let output = BroadcastOutput(sink: sink, backoff: ReconnectBackoff(initialDelay: .milliseconds(300),
                                                                               jitter: 0.2))
            let session = try BroadcastSession(configuration: configuration, outputs: [output])
            async let final = session.run()
            // The outage's timeline in wall time: the server goes at 2.5 s and is back 0.7 s later, mid-broadcast.
            try await Task.sleep(for: .milliseconds(2500))
            server.withLock { $0?.stop() }
            try await Task.sleep(for: .milliseconds(700))
            let (second, _) = try await Self.startServer(port: port, recordDirectory: work.path)
            server.withLock { $0 = second }
            let outcome = await final
            second.stop()
            #expect(outcome == .ended(.durationReached), "\(outcome)")
            #expect(session.statistics.reconnects == 1)
            let files = try Self.recordings(in: work.path)
            #expect(files.count == 2, "\(files)")
            for file in files {
                let report = try ProbeReport.probe(file)
                #expect(report.video?.width == 320 && report.video?.height == 180)
                #expect(report.audio?.codecName == "aac")
                #expect(try ProbeReport.decodeErrors(file).isEmpty, "\(file)")
                let packets = try MediaInspection.videoPackets(file)
                #expect(packets.first?.isKeyframe == true, "\(file) starts with a non-keyframe")
                let start = packets.first?.time ?? 1
                #expect(start < 0.1, "\(file) starts at \(start) s")
            }
        }
    }
}
