import Foundation
import IngestServer
import TestSupport
import Testing

/// Peers past `maxConnections` are refused with a log line: one at once, then counts, a few lines per burst.
@Suite(.serialized) struct RefusedConnectionsTests {
    @Test func refusalsAreLoggedRateLimitedWithCounts() async throws {
        let running = try await IngestServerTests.start { $0.maxConnections = 2 }
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let held = try (0..<2).map { _ in try RawSocket.connect(port: port) }
        let deadline = ContinuousClock.now + .seconds(10)
        while running.server.statistics.connections < 2 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // A burst of 40 peers past the limit: each is accepted and closed at once.
        let burst = PeerThread("refused-burst") {
            for _ in 0..<40 {
                let socket = try RawSocket.connect(port: port)
                try socket.drainUntilClosed(timeout: 10)
            }
        }
        try await burst.finish()
        let refusals = { running.log.all.compactMap { event -> (count: Int, seconds: Int?)? in
            if case .connectionsRefused(let count, 2, _, let seconds) = event { (count, seconds) } else { nil }
        } }
        // The first refusal is said at once; the rest are counted and said together within the interval (5 s).
        #expect(refusals().first?.count == 1 && refusals().first?.seconds == nil, "\(running.log.text)")
        let flushDeadline = ContinuousClock.now + .seconds(8)
        while refusals().map(\.count).reduce(0, +) < 40 && ContinuousClock.now < flushDeadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(refusals().map(\.count).reduce(0, +) == 40, "\(running.log.text)")
        #expect(refusals().count <= 3, "one line per refusal is a flood: \(running.log.text)")
        let lines = running.log.all.filter { if case .connectionsRefused = $0 { true } else { false } }
            .map(\.description)
        #expect(lines.first?.hasPrefix("connection from 127.0.0.1:") == true, "\(lines)")
        #expect(lines.first?.contains("refused: 2 connections are open") == true, "\(lines)")
        #expect(lines.last?.contains("refused 39 connections in the last") == true, "\(lines)")
        held.forEach { $0.close() }
    }
}
