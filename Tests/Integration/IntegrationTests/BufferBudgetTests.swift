import Foundation
import IngestServer
import TestSupport
import Testing

/// The server-wide buffer budget on the players' side: when all players' queues together pass it, players
/// holding more than their even share skip to the next keyframe, long before their own 4 MB limit.
@Suite(.serialized) struct BufferBudgetTests {
    @Test func stalledPlayersSkipAtTheirShareOfTheBudget() async throws {
        let running = try await IngestServerTests.start { $0.bufferBudget = 1 << 20 }
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        // 16 MB: past what the kernel buffers for a stalled player (a few MB) and the 1 MB budget.
        let fixture = try MediaFixture.makeNoisyFLV(in: running.work, seconds: 16, size: "1280x720",
                                                    megabitsPerSecond: 8)
        let players = try (0..<2).map { _ in try RawSocket.connect(port: port, receiveBufferSize: 4096) }
        let started = PeerThread("stalled-players") {
            for socket in players { try HostilePeer.play(socket, key: "budget", port: port) }
        }
        try await started.finish()
        try await FLVPublishing.publish(file: fixture, to: "rtmp://127.0.0.1:\(port)/live", key: "budget")
        let deadline = ContinuousClock.now + .seconds(15)
        while !running.log.all.contains(where: { if case .publishStopped = $0 { true } else { false } })
                && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let behind = running.log.all.compactMap { event -> Int? in
            if case .playerBehind(_, _, _, let queued) = event { queued } else { nil }
        }
        players.forEach { $0.close() }
        // Each skipped past its share (512 kB of the 1 MB budget), far below the 4 MB a lone player may queue.
        #expect(!behind.isEmpty, "\(running.log.text)")
        #expect(behind.allSatisfy { $0 > 512 << 10 && $0 < 2 << 20 }, "queued when skipping: \(behind)")
    }
}
