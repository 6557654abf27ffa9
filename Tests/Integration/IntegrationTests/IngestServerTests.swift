import Foundation
import IngestServer
import Publisher
import StreamCore
import Locking
import TestSupport
import Testing
import Transport

/// Our ingest server against ffmpeg (an independent publisher and player) and our own client.
@Suite(.serialized) struct IngestServerTests {
    /// Collects the server's events for assertions.
    final class EventLog: Sendable {
        private let events = Locked<[ServerEvent]>([])
        /// Signalled at each publish start and each play start.
        private let publishes = DispatchSemaphore(value: 0)
        private let plays = DispatchSemaphore(value: 0)

        func append(_ event: ServerEvent) {
            events.withLock { $0.append(event) }
            if case .publishStarted = event { publishes.signal() }
            if case .playStarted = event { plays.signal() }
        }

        /// Blocks until a publish has started (each call takes one start), at most `seconds`; for a thread of its own
        /// (`offPool`, `OffPoolTask`), so that what the test times next does not wait for a cooperative pool thread.
        /// - Returns: whether one had started.
        func waitForPublish(seconds: Double) -> Bool {
            publishes.wait(timeout: .now() + seconds) == .success
        }

        /// Blocks until a player has started (each call takes one start), at most `seconds`; for a thread of its own.
        /// - Returns: whether one had started.
        func waitForPlay(seconds: Double) -> Bool {
            plays.wait(timeout: .now() + seconds) == .success
        }
        var all: [ServerEvent] { events.withLock { $0 } }
        var text: String { all.map(\.description).joined(separator: "\n") }
    }

    struct Running {
        let server: RTMPServer
        let ports: RTMPServer.BoundPorts
        let log: EventLog
        let recordings: TemporaryDirectory
        let certificate: TestCertificate?
        let work: TemporaryDirectory

        func recordingFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: recordings.path).filter { $0.hasSuffix(".flv") }
                .sorted().map { recordings.file($0) }
        }
    }

    static func start(tls: Bool = false, keys: [String]? = nil,
                      tune: (inout RTMPServer.Configuration) -> Void = { _ in }) async throws -> Running {
        let work = try TemporaryDirectory("ingest")
        let recordings = try TemporaryDirectory("recordings")
        let certificate = tls ? try TestCertificate.make(in: work) : nil
        let log = EventLog()
        var configuration = RTMPServer.Configuration(
            listen: ("127.0.0.1", 0),
            tlsListen: certificate.map { ("127.0.0.1", 0, TLSServerConfiguration(certificateFile: $0.certificateFile,
                                                                                  privateKeyFile: $0.keyFile)) },
            recordDirectory: recordings.path, allowedKeys: keys.map(KeyList.init),
            onEvent: { log.append($0) })
        tune(&configuration)
        let server = try RTMPServer(configuration: configuration)
        let ports = try await server.start()
        return Running(server: server, ports: ports, log: log, recordings: recordings, certificate: certificate,
                       work: work)
    }

    @Test(arguments: [false, true])
    func ffmpegPublishesAndPlaysWhileLiveAndTheRecordingIsClean(overTLS: Bool) async throws {
        let running = try await Self.start(tls: overTLS)
        defer { running.server.stop() }
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 6, size: "640x360", fps: 30, gop: 30)
        let scheme = overTLS ? "rtmps" : "rtmp"
        let port = try #require(overTLS ? running.ports.rtmps : running.ports.rtmp)
        let url = "\(scheme)://127.0.0.1:\(port)/live/ffmpeg-secret-key"

        let published = running.work.file("played.flv")
        let publisher = OffPoolTask("ffmpeg-publisher") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", url],
                               timeout: 30)
        }
        // Play once the publisher is live (and a keyframe has gone by), while it still has seconds to go: timed on
        // a thread of its own, since in a parallel run a sleep on the cooperative pool may resume seconds late.
        let log = running.log
        let player = try await offPool("ffmpeg-player") {
            guard log.waitForPublish(seconds: 15) else { throw Subprocess.Failure(description: "no publish in 15 s") }
            Thread.sleep(forTimeInterval: 1.2)
            return try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", url, "-t", "2", "-c", "copy", published],
                                      timeout: 20)
        }
        let push = try await publisher.value
        running.server.stop()

        #expect(push.status == 0, "ffmpeg publish failed: \(push.stderr)")
        #expect(player.status == 0, "ffmpeg play failed: \(player.stderr)")
        let played = try ProbeReport.probe(published)
        #expect(played.video?.codecName == "h264")
        #expect(played.audio?.codecName == "aac")
        #expect((played.video?.frameCount ?? 0) >= 45, "player got \(played.video?.frameCount ?? 0) frames")
        #expect(try ProbeReport.decodeErrors(published) == "")

        let recording = try #require(try running.recordingFiles().first, "no recording: \(running.log.text)")
        let report = try ProbeReport.probe(recording)
        #expect(report.video?.frameCount == 180)
        #expect(report.video?.width == 640 && report.video?.height == 360)
        #expect(report.audio?.sampleRate == 48000)
        #expect(try ProbeReport.decodeErrors(recording) == "")
        // The key is a secret: neither the recording's name nor the log carries it.
        #expect(!recording.contains("ffmpeg-secret-key"))
        #expect(!running.log.text.contains("ffmpeg-secret-key"))
        #expect(running.log.all.contains { if case .playStarted = $0 { true } else { false } })
    }

    @Test func aKeyNotInTheKeysFileIsRefusedWithoutRevealingWhichKeysExist() async throws {
        let running = try await Self.start(keys: ["the-right-key"])
        defer { running.server.stop() }
        let url = try IngestURL(parsing: "rtmp://127.0.0.1:\(try #require(running.ports.rtmp))/live")

        let client = try RTMPClient()
        try await client.connect(to: url)
        let error = await #expect(throws: PublishError.self) { try await client.publish(streamKey: "a-wrong-key") }
        #expect(error?.code == .publishRejected)
        #expect(error?.serverStatusCode == "NetStream.Publish.Unauthorized")
        #expect(error?.description.contains("a-wrong-key") == false)
        #expect(error?.description.contains("the-right-key") == false)

        let allowed = try RTMPClient()
        try await allowed.connect(to: url)
        try await allowed.publish(streamKey: "the-right-key")
        await allowed.close()

        let work = try TemporaryDirectory()
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 1)
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture, "-c", "copy", "-f", "flv",
                                                 "\(url.tcUrl)/another-wrong-key"], timeout: 20)
        #expect(push.status != 0, "ffmpeg should see the refusal")
        #expect(!running.log.text.contains("wrong-key") && !running.log.text.contains("right-key"))
        #expect(running.log.all.filter { if case .publishRefused = $0 { true } else { false } }.count == 2)
    }

    /// Issue 34 D: an empty stream key is no key (every such publish would share one guessable address).
    @Test func anEmptyStreamKeyIsRefused() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        let client = try RTMPClient()
        let port = try #require(running.ports.rtmp)
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        let error = await #expect(throws: PublishError.self) { try await client.publish(streamKey: "") }
        #expect(error?.serverStatusCode == "NetStream.Publish.BadName", "\(String(describing: error))")
        #expect(running.log.all.contains {
            if case .publishRefused(_, _, _, "an empty stream key") = $0 { true } else { false }
        }, "\(running.log.text)")
    }

    @Test func aSilentConnectionIsDroppedAfterTheHandshakeTimeoutWhileOthersAreServed() async throws {
        let running = try await Self.start { $0.handshakeTimeout = .milliseconds(500) }
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let loop = try EventLoop(name: "silent-peer")
        defer { loop.shutdown() }
        let silent = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                       loop: loop)
        // Meanwhile a real publisher is served.
        let client = try RTMPClient()
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        try await client.publish(streamKey: "busy")
        let start = ContinuousClock.now
        let end = try await silent.read()
        #expect(end == nil)
        #expect(start.duration(to: .now) < .seconds(10))
        #expect(running.log.text.contains("no RTMP connect within"))
        await client.close()
    }

    @Test func garbageInsteadOfAHandshakeIsRejectedAndTheServerKeepsServing() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let loop = try EventLoop(name: "garbage-peer")
        defer { loop.shutdown() }
        let garbage = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5), loop: loop)
        try garbage.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var closed = false
        while !closed {
            closed = try await garbage.read() == nil
        }
        #expect(closed)
        let client = try RTMPClient()
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        try await client.publish(streamKey: "after-garbage")
        await client.close()
        #expect(running.log.all.contains { if case .connectionFailed = $0 { true } else { false } })
    }
}
