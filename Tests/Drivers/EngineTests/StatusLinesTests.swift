import Engine
import Testing

/// The lines a person reads as a broadcast goes: what `stream broadcast` prints and the iOS extension logs.
struct StatusLinesTests {
    private static func status(_ state: BroadcastState, queue: Int64 = 0) -> BroadcastOutput.Status {
        var status = BroadcastOutput.Status()
        status.state = state
        status.queueMilliseconds = queue
        status.lastError = BroadcastError(.connectionLost, "b: stalled", isTransient: true)
        return status
    }

    @Test func connectionChangesMakeALineAtOnceWithTheRightLabel() {
        var lines = StatusLines(labels: ["a", "b"], statusEvery: 5)
        let live = Self.status(.live)
        #expect(lines.lines(for: .output(index: 0, status: live), state: .live, statuses: []) == [])
        #expect(lines.lines(for: .output(index: 1, status: live), state: .live, statuses: []) == [])
        let lost = Self.status(.reconnecting(attempt: 1))
        #expect(lines.lines(for: .output(index: 1, status: lost), state: .live, statuses: [])
                    == [.connection("connection lost: b: stalled; reconnecting")])
        var back = Self.status(.live)
        back.reconnects = 1
        back.lastOutageDuration = .seconds(13)
        #expect(lines.lines(for: .output(index: 1, status: back), state: .live, statuses: [])
                    == [.connection("b: live again after 13.0 s off the air (reconnect 1)")])
    }

    @Test func theStatusLineComesEveryNRefreshesWithALinePerDestination() {
        var lines = StatusLines(labels: ["a", "b"], statusEvery: 5)
        let statuses = [Self.status(.live), Self.status(.reconnecting(attempt: 2), queue: 900)]
        var made: [StatusLines.Line] = []
        for _ in 0..<10 {
            made += lines.lines(for: .statistics(BroadcastStatistics()), state: .live, statuses: statuses)
        }
        #expect(made.count == 2)
        guard case .status(let text, let destinations) = made.first else {
            Issue.record("no status line: \(made)")
            return
        }
        #expect(text.hasPrefix("live 00:00 | video 0 kbps"))
        #expect(destinations == ["  a: live | queue 0 ms | dropped 0 | reconnects 0",
                                 "  b: reconnecting (2) | queue 900 ms | dropped 0 | reconnects 0"])
        // One destination: no extra lines.
        var single = StatusLines(labels: ["a"], statusEvery: 1)
        #expect(single.lines(for: .statistics(BroadcastStatistics()), state: .live, statuses: [Self.status(.live)])
                    .allSatisfy { if case .status(_, let lines) = $0 { lines.isEmpty } else { false } })
    }
}
