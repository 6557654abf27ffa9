import LiveProtocol
import Metrics
import ShowServer
import TestSupport
import Testing

/// Issue 33's `/metrics`, from the driver: what the show server counts as chat, refusals and commits happen.
@Suite(.startsPeers) struct ShowMetricsTests {
    @Test func countsChatRefusalsDeliveriesCommitsAndLiveAudiences() async throws {
        let directory = try TemporaryDirectory("show-metrics")
        let server = try await StreamStatusTests.server(directory: directory.path)
        defer { server.stop() }
        let empty = await server.metrics()
        #expect(empty.liveShows.isEmpty && empty.liveShowCount == 0 && empty.chatMessages == 0
                && empty.refusals.isEmpty && empty.sessions == 0)
        try StreamStatusTests.goLive(server, "show:mugs")
        let (bob, bobSession) = ShowServerTests.joined(server, "bob")
        let visitor = RecordingConnection()
        // A visitor of club:* may not watch: its join is refused (unauthorized) and closed.
        let refused = server.connected(visitor, streamName: "club:tv", token: nil)
        ShowServerTests.send(server, refused, 1, .join(since: nil))
        #expect(visitor.reply(1) != nil)
        for (id, text) in [(2, "one"), (3, "two")] {
            ShowServerTests.send(server, bobSession, Int64(id), .send(text: text))
            guard case .success? = bob.reply(Int64(id)) else { Issue.record("\(text) was not acknowledged"); return }
        }
        ShowServerTests.send(server, bobSession, 4, .goLive(tiles: [.camera]))
        #expect(bob.reply(4) != nil)
        let metrics = await server.metrics()
        #expect(metrics.chatMessages == 2)
        #expect(metrics.refusals == [.unauthorized: 1, .notHost: 1], "\(metrics.refusals)")
        #expect(metrics.liveShowCount == 1)
        #expect(metrics.liveShows == [ShowMetrics.LiveShow(name: "show:mugs", sessions: 2, viewers: 1)],
                "the host and bob joined; bob watches")
        #expect(metrics.sessions == 2, "the refused visitor's session is gone")
        // Two welcomes, two acks and two broadcasts of two messages each, two refusals, and the events going live.
        #expect(metrics.deliveries >= 10, "\(metrics.deliveries)")
        #expect(metrics.storeCommits.count >= 2 && metrics.storeCommits.sum > 0, "\(metrics.storeCommits)")
        #expect(metrics.storeCommits.cumulativeCounts.last == metrics.storeCommits.count)
    }

    /// Per-show series are bounded: past ``ShowMetrics/perShowLimit`` live shows only those with the most sessions
    /// are listed; the count of live shows counts them all.
    @Test func listsAtMostTheLimitOfLiveShowsMostWatchedFirst() async throws {
        let directory = try TemporaryDirectory("show-metrics")
        let server = try await StreamStatusTests.server(directory: directory.path)
        defer { server.stop() }
        let names = (0...ShowMetrics.perShowLimit).map { "show:s\($0)" }
        for name in names { try StreamStatusTests.goLive(server, name) }
        // One more session on the last show to go live: it comes first.
        let bob = RecordingConnection()
        let session = server.connected(bob, streamName: names.last!, token: ShowServerTests.token("bob"))
        ShowServerTests.send(server, session, 1, .join(since: nil))
        #expect(bob.reply(1) != nil)
        let metrics = await server.metrics()
        #expect(metrics.liveShowCount == ShowMetrics.perShowLimit + 1)
        #expect(metrics.liveShows.count == ShowMetrics.perShowLimit)
        #expect(metrics.liveShows.first == ShowMetrics.LiveShow(name: names.last!, sessions: 2, viewers: 1))
        // The rest have one session each, by name: show:s99 is the one left out.
        #expect(metrics.liveShows.dropFirst().map(\.name) == names.dropLast().sorted().dropLast())
    }
}
