import Foundation
import TestSupport
import Testing

/// The real `stream broadcast` through the throttling proxy: a healthy link, then half the stream's bitrate, then
/// a full stall (the proxy stops reading, as a server or a network that hangs): frames are dropped and counted,
/// the queue stays within its policy, the stall is detected by a timeout and becomes a reconnect once the link
/// flows again, and the broadcaster's memory stays flat throughout.
@Suite(.serialized) struct FaultStalledBroadcastTests {
    @Test func halfRateThenStalledLinkDropsCountsReconnectsAndKeepsMemoryFlat() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let proxy = try ThrottlingProxy(targetPort: try #require(running.ports.rtmp))
        defer { proxy.stop() }
        let key = "stall-secret-key-91c2"
        // 1200 + 128 kbit/s = 166,000 bytes per second; the slow link carries half.
        let broadcaster = try BroadcasterProcess(url: "rtmp://127.0.0.1:\(proxy.port)/live", key: key, arguments: [
            "--duration", "40", "--quality", "480", "--fps", "24", "--test-size", "640x360", "--video-bitrate", "1200",
            "--pip", "off", "--adaptive-bitrate", "off",
        ])
        defer { broadcaster.stop() }
        let lines = broadcaster.lines
        let memory = broadcaster.memory
        _ = try await lines.wait(for: "Broadcasting", timeout: .seconds(30))
        try await Task.sleep(for: .seconds(4))
        let healthyUntil = ContinuousClock.now
        let healthyPeak = memory.peak(from: healthyUntil - .seconds(2), to: healthyUntil)

        proxy.setRate(bytesPerSecond: 83_000)
        // Two status lines (every 5 s) fall in the slow phase.
        try await Task.sleep(for: .seconds(10))
        let droppedWhileSlow = lines.statusValues("dropped").last ?? 0

        proxy.setStalled(true)
        let stalledAt = ContinuousClock.now
        let lostAt = try await lines.wait(for: "connection lost", timeout: .seconds(40))
        let detection = stalledAt.duration(to: lostAt)
        try await Task.sleep(for: .seconds(2))
        proxy.setStalled(false)
        proxy.setRate(bytesPerSecond: nil)
        let flowingAt = ContinuousClock.now
        let backAt = try await lines.wait(for: "live again", timeout: .seconds(30))
        let recovery = flowingAt.duration(to: backAt)

        let status = broadcaster.waitForExit(timeout: 60)
        let output = lines.text
        let faultPeak = memory.peak(from: healthyUntil)
        print("half-rate then stalled link: \(droppedWhileSlow) frames dropped in 10 s at half rate; stall detected "
              + "after \(detection); live again \(recovery) after the link flowed; RSS peak \(healthyPeak) bytes "
              + "healthy, \(faultPeak) bytes through the faults\n\(output)")

        #expect(status == 0, "exit \(String(describing: status)): \(broadcaster.errors)")
        #expect(!(output + broadcaster.errors).contains(key), "the stream key was printed")
        #expect(droppedWhileSlow > 0, "nothing was dropped at half rate:\n\(output)")
        let lost = try #require(lines.all.first { $0.text.contains("connection lost") }?.text)
        #expect(lost.contains("stalled"), "\(lost)")
        // The response timeout (10 s) after the queue stops moving, plus filling the buffers on the way.
        #expect(detection < .seconds(25), "the stall was detected after \(detection)")
        #expect(recovery < .seconds(20), "live again \(recovery) after the link flowed")
        let queued = lines.statusValues("queue")
        // The policy's bounds: video goes past 900 ms, everything past 3 s.
        #expect(!queued.isEmpty && queued.allSatisfy { $0 <= 3100 }, "queue spans \(queued)")
        let summary = try #require(lines.all.last { $0.text.hasPrefix("Broadcast ended") }?.text, "\(output)")
        #expect(summary.contains("1 reconnects (offline"), "\(summary)")
        #expect(healthyPeak > 0)
        #expect(faultPeak <= healthyPeak + BroadcasterProcess.memoryGrowthAllowance,
                "RSS \(healthyPeak) bytes healthy, peak \(faultPeak) after")

        // The server recorded the connection before the stall and the one after it; the second decodes.
        let recordings = try running.recordingFiles()
        try #require(recordings.count == 2, "\(recordings)")
        let after = try #require(recordings.last)
        let first = try FaultServerRestartTests.leadingTags(of: after)
            .first { $0.type == .video && !$0.isSequenceHeader }
        #expect(first?.isVideoKeyFrame == true, "\(after) does not start at a keyframe")
        #expect(try ProbeReport.decodeErrors(after).isEmpty, "\(after) does not decode cleanly")
    }
}
