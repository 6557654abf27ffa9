import FLV
import Foundation
import TestSupport
import Testing

/// The real `stream broadcast` against nginx-rtmp frozen with SIGSTOP (a server that hangs: its sockets stay open,
/// the kernel still accepts and buffers, nothing is read or answered), and thawed again.
@Suite(.serialized) struct FaultFrozenIngestTests {
    /// The seconds a `live again after 12.3 s off the air` line gives.
    static func outageSeconds(_ line: String) -> Double? {
        guard let range = line.range(of: "live again after ") else { return nil }
        return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }

    /// Issue 14, defect 1: after the freeze the broadcaster reconnected, but adaptive bitrate stayed at its floor
    /// (`target 200` for 85 s on an idle loopback link). And defect 7: the outage was reported from when the loss
    /// was noticed (2.6 s "off the air" for a 15 s freeze), not from when the link stopped carrying bytes.
    @Test func adaptiveBitrateClimbsBackAfterAFrozenIngestAndTheOutageCountsFromTheFreeze() async throws {
        let nginx = try NginxRTMP()
        defer { nginx.stop() }
        let broadcaster = try BroadcasterProcess(url: nginx.rtmpURL, key: "frozen-abr-key", arguments: [
            "--duration", "120", "--quality", "480", "--fps", "24", "--test-size", "854x480", "--video-bitrate",
            "1000", "--pip", "off", "--adaptive-bitrate", "on",
        ])
        defer { broadcaster.stop() }
        let lines = broadcaster.lines
        _ = try await lines.wait(for: "Broadcasting", timeout: .seconds(30))
        try await Task.sleep(for: .seconds(6))
        nginx.freeze()
        let frozenAt = ContinuousClock.now
        try await Task.sleep(for: .seconds(15))
        nginx.thaw()
        let thawedAt = ContinuousClock.now
        let backAt = try await lines.wait(for: "live again", timeout: .seconds(40))
        // Watch the encoder's bitrate for a minute after the thaw (a status line every 5 s), or until it is back.
        var reached = 0
        while ContinuousClock.now < thawedAt + .seconds(60) {
            reached = lines.targetBitrates(from: backAt).map(\.kbps).max() ?? 0
            if reached >= 1000 { break }
            try await Task.sleep(for: .seconds(1))
        }
        let climbed = lines.targetBitrates(from: backAt).first { $0.kbps == reached }
            .map { thawedAt.duration(to: $0.at) }
        broadcaster.stop()
        let output = lines.text
        let liveAgain = try #require(lines.all.first { $0.text.contains("live again") }?.text)
        let reported = try #require(Self.outageSeconds(liveAgain), "\(liveAgain)")
        let outage = frozenAt.duration(to: backAt) / .seconds(1)
        print("frozen ingest 15 s: \(liveAgain); frozen to live again \(outage) s; the encoder's bitrate reached "
              + "\(reached) kbps (target 1000) \(climbed.map { "\($0)" } ?? "never") after the thaw\n\(output)")

        #expect(!(output + broadcaster.errors).contains("frozen-abr-key"), "the stream key was printed")
        #expect(reached >= 900, "the bitrate stayed at \(reached) kbps after the reconnect:\n\(output)")
        // The link stopped carrying bytes soon after the freeze (the kernels' buffers take a few seconds' worth):
        // the outage counts from then, not from the stall's detection 10 s later.
        #expect(reported >= outage - 5 && reported <= outage + 1,
                "reported \(reported) s off the air; frozen to live again took \(outage) s")
    }

    /// Issue 14, defect 7: a broadcast stopped while reconnecting said "offline 3.2 s, longest outage 0.0 s".
    @Test func aBroadcastStoppedWhileReconnectingCountsTheOngoingOutage() async throws {
        let nginx = try NginxRTMP()
        defer { nginx.stop() }
        let broadcaster = try BroadcasterProcess(url: nginx.rtmpURL, key: "stopped-outage-key", arguments: [
            "--duration", "60", "--quality", "480", "--fps", "24", "--test-size", "640x360", "--video-bitrate", "600",
            "--pip", "off",
        ])
        defer { broadcaster.stop() }
        let lines = broadcaster.lines
        _ = try await lines.wait(for: "Broadcasting", timeout: .seconds(30))
        try await Task.sleep(for: .seconds(3))
        nginx.crash()
        _ = try await lines.wait(for: "connection lost", timeout: .seconds(15))
        try await Task.sleep(for: .seconds(4))
        broadcaster.stop()
        let summary = try #require(lines.all.last { $0.text.hasPrefix("Broadcast ended") }?.text, "\(lines.text)")
        print("stopped while reconnecting: \(summary)")
        let offline = try #require(Self.number(after: "offline ", in: summary), "\(summary)")
        let longest = try #require(Self.number(after: "longest outage ", in: summary), "\(summary)")
        #expect(offline >= 3.5 && longest >= 3.5, "\(summary)")
        #expect(abs(offline - longest) < 0.2, "\(summary)")
    }

    static func number(after prefix: String, in text: String) -> Double? {
        guard let range = text.range(of: prefix) else { return nil }
        return Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }

    /// One encode to two nginx-rtmp ingests; one is frozen for 15 s mid-broadcast. The other's recording has every
    /// frame, with no gap; the frozen one drops by its own policy and reconnects; the encoder ran once.
    @Test func twoIngestsOneFrozenTheOtherGetsEveryFrame() async throws {
        let steady = try NginxRTMP()
        defer { steady.stop() }
        let frozen = try NginxRTMP()
        defer { frozen.stop() }
        let seconds = 40
        let fps = 24
        let broadcaster = try BroadcasterProcess(arguments: [
            "--key-stdin", steady.rtmpURL, frozen.rtmpURL, "--duration", "\(seconds)", "--quality", "480", "--fps",
            "\(fps)", "--test-size", "640x360", "--video-bitrate", "800", "--pip", "off",
        ], stdin: "steady-key-1\nfrozen-key-2\n")
        defer { broadcaster.stop() }
        let lines = broadcaster.lines
        _ = try await lines.wait(for: "Broadcasting", timeout: .seconds(30))
        try await Task.sleep(for: .seconds(8))
        frozen.freeze()
        try await Task.sleep(for: .seconds(15))
        frozen.thaw()
        let frozenLabel = "rtmp://127.0.0.1:\(frozen.port)/live/••••"
        _ = try await lines.wait(for: "\(frozenLabel): live again", timeout: .seconds(40))
        let status = broadcaster.waitForExit(timeout: 60)
        let output = lines.text
        print("two ingests, one frozen for 15 s:\n\(output)\n\(broadcaster.errors)")

        #expect(status == 0, "exit \(String(describing: status)): \(broadcaster.errors)")
        #expect(!(output + broadcaster.errors).contains("steady-key-1") && !output.contains("frozen-key-2"))
        let summary = try #require(lines.all.last { $0.text.hasPrefix("Broadcast ended") }?.text, "\(output)")
        let encoded = try #require(Self.number(after: ", ", in: summary).map(Int.init), "\(summary)")
        // One encode: the frames of one real-time encoder over the duration (the flush may add one), not two.
        #expect(encoded <= seconds * fps + 2 && encoded >= seconds * fps * 9 / 10, "\(summary)")
        let steadyLabel = "rtmp://127.0.0.1:\(steady.port)/live/••••"
        // The summary's line per destination (after "Broadcast ended"; the status lines before it look alike).
        let tail = lines.all.map(\.text).drop { !$0.hasPrefix("Broadcast ended") }
        let steadyLine = try #require(tail.first { $0.hasPrefix("  \(steadyLabel): ") }, "\(output)")
        #expect(steadyLine.hasSuffix(": ended (stopped), 0 dropped (0 keyframes, 0 audio), 0 reconnects"),
                "\(steadyLine)")
        let frozenLine = try #require(tail.first { $0.hasPrefix("  \(frozenLabel): ") }, "\(output)")
        #expect(frozenLine.contains(" 1 reconnects (offline "), "\(frozenLine)")

        // The steady ingest recorded every frame of the one encode, with no gap from before the freeze to the end
        // (frames the encoder skipped while it started, counted as "late" in the summary, are no one's drop).
        let steadyFiles = steady.recordings()
        try #require(steadyFiles.count == 1, "\(steadyFiles)")
        let times = try ProbeReport.packetTimes(try #require(steadyFiles.first), stream: "v:0")
        #expect(abs(times.count - encoded) <= 1, "\(times.count) frames recorded of \(encoded) encoded")
        // An encoder held up by the frozen output would leave a gap of seconds (the freeze lasts 15); a loaded
        // 2-core machine may make the real-time encoder skip a few frames (167 ms seen), which is not that.
        let gaps = zip(times.dropFirst(), times).filter { $0.1 >= 6 }.map { $0.0 - $0.1 }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 < 0.5 },
                "the longest gap between frames from 6 s on was \(gaps.max() ?? 0) s")
        // The frozen one: its first recording, then the one after the reconnect, which starts at a keyframe.
        let frozenFiles = frozen.recordings()
        try #require(frozenFiles.count == 2, "\(frozenFiles)")
        let after = try FaultServerRestartTests.leadingTags(of: try #require(frozenFiles.last))
        let firstVideo = after.first { $0.type == .video && !$0.isSequenceHeader }
        #expect(firstVideo?.isVideoKeyFrame == true, "the recording after the reconnect does not start at a keyframe")
        #expect(try ProbeReport.decodeErrors(try #require(frozenFiles.last)).isEmpty)
    }
}
