import Broadcast
import Engine
import Foundation
import IngestServer
import Publisher
import StreamCore
import TestSupport
import Testing

/// A live broadcast session against link faults: a server that dies for good (retries on the backoff, then a
/// clear error without the key, in bounded time), and a link that stalls (detected, reconnected once it flows).
@Suite(.serialized) struct FaultBroadcastTests {
    @Test func whenTheServerDiesForGoodTheBroadcastGivesUpWithAClearError() async throws {
        let running = try await IngestServerTests.start()
        let port = try #require(running.ports.rtmp)
        var settings = StreamSettings.defaults(for: .p480, frameRate: .fps24)
        settings.videoBitrateKbps = 400
        let key = "server-dies-secret-key"
        let sink = RTMPSink(url: IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live"),
                            streamKey: key, options: .init(connectTimeout: .seconds(2), responseTimeout: .seconds(2)))
        let configuration = BroadcastConfiguration(
            settings: settings, screenSize: PixelSize(width: 320, height: 180), duration: .seconds(60))
        // The output's own schedule counts (the configuration's `backoff` is what `stream broadcast` passes on).
        let backoff = ReconnectBackoff(initialDelay: .milliseconds(200), maximumDelay: .milliseconds(400), jitter: 0,
                                       maximumAttempts: 3)
        let session = try BroadcastSession(configuration: configuration,
                                           outputs: [BroadcastOutput(sink: sink, backoff: backoff)])
        async let final = session.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while session.state != .live && !session.state.isFinal && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(session.state == .live)
        try await Task.sleep(for: .milliseconds(1500))
        running.server.stop()
        let died = ContinuousClock.now
        let outcome = await final
        let gaveUpAfter = died.duration(to: .now)

        guard case .failed(let error) = outcome else {
            Issue.record("the broadcast did not fail: \(outcome)")
            return
        }
        #expect(error.message.contains("gave up after 3"), "\(error.message)")
        #expect(!error.message.contains(key), "\(error.message)")
        #expect(gaveUpAfter < .seconds(20), "gave up after \(gaveUpAfter)")
        // What was broadcast before the server died is a clean recording.
        let recording = try #require(try running.recordingFiles().first, "\(running.log.text)")
        #expect((try ProbeReport.probe(recording).video?.frameCount ?? 0) >= 24)
        print("server died: broadcast \(outcome) after \(gaveUpAfter): \(error.message)")
    }

    @Test func aStalledLinkIsDetectedAndTheBroadcastReconnectsWhenItFlowsAgain() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let proxy = try ThrottlingProxy(targetPort: try #require(running.ports.rtmp))
        defer { proxy.stop() }
        var settings = StreamSettings.defaults(for: .p480, frameRate: .fps30)
        settings.videoBitrateKbps = 1500
        settings.adaptiveBitrate = false  // a steady bitrate fills the kernel's buffers in a known time
        let sink = RTMPSink(url: IngestURL(scheme: .rtmp, host: "127.0.0.1", port: proxy.port, app: "live"),
                            streamKey: "stalled-broadcast",
                            options: .init(connectTimeout: .seconds(3), responseTimeout: .seconds(3)))
        // A small sink buffer: the output waits for the connection to drain as soon as the kernel stops taking
        // bytes, which is where a stall shows.
        let output = BroadcastOutput(sink: sink, backoff: ReconnectBackoff(initialDelay: .milliseconds(300),
                                                                           maximumDelay: .milliseconds(600)),
                                     sinkBufferLimit: 4096)
        let session = try BroadcastSession(
            configuration: BroadcastConfiguration(settings: settings, screenSize: PixelSize(width: 320, height: 180),
                                                  duration: .seconds(14)),
            outputs: [output])
        async let final = session.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while output.status.state != .live && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        proxy.setStalled(true)
        let stalledAt = ContinuousClock.now
        while !Self.isReconnecting(output.status.state) && !output.status.state.isFinal
                && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let detected = stalledAt.duration(to: .now)
        #expect(Self.isReconnecting(output.status.state), "\(output.status.state) after \(detected)")
        proxy.setStalled(false)
        let outcome = await final
        print("stalled broadcast: reconnecting \(detected) after the stall; \(outcome), "
              + "reconnects \(session.statistics.reconnects), dropped \(session.statistics.framesDroppedByQueue)")
        #expect(outcome == .ended(.durationReached), "\(outcome)")
        #expect(session.statistics.reconnects >= 1)
        #expect(try running.recordingFiles().count >= 2, "\(running.log.text)")
    }

    static func isReconnecting(_ state: BroadcastState) -> Bool {
        if case .reconnecting = state { true } else { false }
    }
}
