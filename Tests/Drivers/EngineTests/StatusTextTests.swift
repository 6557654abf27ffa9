import Engine
import Testing

/// What `stream broadcast` (and the iOS extension's log) says about a connection and at the end.
struct StatusTextTests {
    private static let lost = BroadcastError(.connectionLost, "rtmp://127.0.0.1:1935/live/••••: connection reset",
                                             isTransient: true)

    private static func status(_ state: BroadcastState, reconnects: Int = 0,
                               lastOutage: Duration? = nil) -> BroadcastOutput.Status {
        var status = BroadcastOutput.Status()
        status.state = state
        status.lastError = lost
        status.reconnects = reconnects
        status.lastOutageDuration = lastOutage
        return status
    }

    @Test func losingTheConnectionSaysWhyAndThatItReconnects() {
        let line = StatusText.connectionEvent(label: "ingest", from: .live,
                                                   to: Self.status(.reconnecting(attempt: 1)))
        #expect(line == "connection lost: \(Self.lost.message); reconnecting")
    }

    @Test func aFailedAttemptSaysSoOnceAndTheNextOneIsTried() {
        let line = StatusText.connectionEvent(label: "ingest", from: .reconnecting(attempt: 2),
                                                   to: Self.status(.reconnecting(attempt: 3)))
        #expect(line == "reconnect attempt 2 failed: \(Self.lost.message); trying again")
        #expect(StatusText.connectionEvent(label: "ingest", from: .reconnecting(attempt: 3),
                                                to: Self.status(.reconnecting(attempt: 3))) == nil)
    }

    @Test func beingLiveAgainSaysHowLongTheStreamWasOff() {
        let line = StatusText.connectionEvent(
            label: "rtmp://h/live/••••", from: .reconnecting(attempt: 2),
            to: Self.status(.live, reconnects: 1, lastOutage: .milliseconds(3250)))
        #expect(line == "rtmp://h/live/••••: live again after 3.2 s off the air (reconnect 1)"
                    || line == "rtmp://h/live/••••: live again after 3.3 s off the air (reconnect 1)")
    }

    @Test(arguments: [BroadcastState.idle, .connecting, .live, .ended(.stopped)])
    func otherChangesPrintNothing(from state: BroadcastState) {
        #expect(StatusText.connectionEvent(label: "x", from: state, to: Self.status(.live)) == nil)
    }

    @Test func theSummaryBreaksDropsDownAndGivesTheTimeOffTheAir() {
        var statistics = BroadcastStatistics()
        statistics.elapsedSeconds = 24.4
        statistics.framesEncoded = 700
        statistics.framesDroppedByQueue = 10
        statistics.droppedKeyframesByQueue = 1
        statistics.framesSkippedLate = 2
        statistics.audioFramesDroppedByQueue = 3
        statistics.reconnects = 2
        #expect(StatusText.summary(statistics)
                    == "00:24, 700 frames, 12 dropped (10 by the send queue, 1 keyframes; 2 late; 3 audio), "
                    + "2 reconnects")
        statistics.outages = 2
        statistics.offlineSeconds = 7.44
        statistics.longestOutageSeconds = 4.06
        statistics.latencyP50Milliseconds = 12
        statistics.latencyP99Milliseconds = 31
        #expect(StatusText.summary(statistics)
                    == "00:24, 700 frames, 12 dropped (10 by the send queue, 1 keyframes; 2 late; 3 audio), "
                    + "2 reconnects (offline 7.4 s, longest outage 4.1 s) | latency p50 12 ms, p99 31 ms")
    }

    @Test func aBroadcastStoppedWhileReconnectingCountsTheOngoingOutage() {
        // Defect 7 of issue 14: stopped 3.2 s into an outage, the summary said "longest outage 0.0 s".
        var status = BroadcastOutput.Status()
        let now = ContinuousClock.now
        status.offlineSince = now - .milliseconds(3200)
        status.longestOutageDuration = .seconds(1)
        status.offlineDuration = .seconds(1)
        #expect(status.offline(at: now) == .milliseconds(4200))
        #expect(status.longestOutage(at: now) == .milliseconds(3200))
    }

    @Test func severalDestinationsGetALineEach() {
        var status = BroadcastOutput.Status()
        status.state = .reconnecting(attempt: 2)
        status.queueMilliseconds = 1200
        status.reconnects = 1
        #expect(StatusText.destinationLine(label: "rtmp://b/live/••••", status)
                    == "  rtmp://b/live/••••: reconnecting (2) | queue 1200 ms | dropped 0 | reconnects 1")
        status.state = .ended(.stopped)
        status.outages = 1
        status.offlineDuration = .milliseconds(15_240)
        status.longestOutageDuration = .milliseconds(15_240)
        #expect(StatusText.destinationSummary(label: "rtmp://b/live/••••", status)
                    == "  rtmp://b/live/••••: ended (stopped), 0 dropped (0 keyframes, 0 audio), 1 reconnects "
                    + "(offline 15.2 s, longest outage 15.2 s)")
    }
}
