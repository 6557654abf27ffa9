import HTTPServer
import IngestServer
import Locking
import Transport
import Testing
@testable import StreamCLI

/// `stream serve --metrics-listen`: where metrics are served, and what the counters make of the servers' events.
@Suite struct ServeMetricsTests {
    private func address(_ arguments: [String],
                         http: HTTPServer.Configuration? = HTTPServer.Configuration()) throws -> (String, Int)? {
        let parsed = try ArgumentParser.parse(arguments, options: [ServeMetrics.listen])
        return try ServeMetrics.address(parsed, http: http).map { ($0.host, $0.port) }
    }

    @Test func onlyTheDefaultAddressMayBeTakenAlready() throws {
        let given = try ArgumentParser.parse(["--metrics-listen", "127.0.0.1:9100"], options: [ServeMetrics.listen])
        let none = try ArgumentParser.parse([], options: [ServeMetrics.listen])
        #expect(try ServeMetrics.address(given, http: nil)?.isDefault == false)
        #expect(try ServeMetrics.address(none, http: nil)?.isDefault == true)
    }

    @Test func listensOnLoopbackByDefaultAndNotWhenOff() throws {
        #expect(try address([]).map { "\($0.0):\($0.1)" } == "127.0.0.1:9464")
        #expect(try address(["--metrics-listen", "off"]) == nil)
        #expect(try address(["--metrics-listen", "[::1]:0"]).map { "\($0.0):\($0.1)" } == "::1:0")
        #expect(try address(["--metrics-listen", "0.0.0.0:9100"], http: nil).map { $0.1 } == 9100)
    }

    @Test func refusesThePublicHTTPPort() {
        #expect(throws: CLIError.self) { try address(["--metrics-listen", "127.0.0.1:8080"]) }
        var https = HTTPServer.Configuration(listen: nil)
        https.tlsListen = ("0.0.0.0", 8443, TLSServerConfiguration(certificateFile: "c", privateKeyFile: "k"))
        #expect(throws: CLIError.self) { try address(["--metrics-listen", "127.0.0.1:8443"], http: https) }
        #expect(throws: CLIError.self) { try address(["--metrics-listen", "nowhere"]) }
    }

    /// Scrapes within the render interval share one rendering; the first after it renders again.
    @Test func scrapesWithinTheIntervalShareOneRendering() async {
        let clock = Locked<Int64>(0)
        let cache = ServeMetrics.RenderCache(interval: .milliseconds(500), clock: { clock.withLock { $0 } })
        let renders = Locked(0)
        let render = { () async -> [UInt8] in [renders.withLock { $0 += 1; return UInt8($0) }] }
        #expect(cache.fresh() == nil)
        #expect(await cache.body(render) == [1])
        clock.withLock { $0 = 499_999_999 }
        #expect(await cache.body(render) == [1] && cache.fresh() == [1])
        clock.withLock { $0 = 500_000_000 }
        #expect(cache.fresh() == nil)
        #expect(await cache.body(render) == [2])
        #expect(await cache.body(render) == [2] && renders.withLock { $0 } == 2)
    }

    /// Datagram drop reasons become snake-case label values.
    @Test func dropReasonsAreSnakeCase() {
        #expect(ServeMetrics.Sources.snakeCase("unknownUfrag") == "unknown_ufrag")
        #expect(ServeMetrics.Sources.snakeCase("notMultiplexed") == "not_multiplexed")
    }

    @Test func countsRefusalsAndDropsFromEventsWithoutTheirDetails() {
        let counters = ServeMetrics.Counters()
        counters.ingest(.publishRefused(app: "live", keyTag: "k1", peer: "127.0.0.1:5", reason: "unknown key"))
        counters.ingest(.connectionsRefused(count: 7, limit: 512, lastPeer: "127.0.0.1:6", seconds: 5))
        counters.ingest(.publishStarted(app: "live", keyTag: "k1", peer: "127.0.0.1:5"))
        counters.http(.requestRejected(peer: "127.0.0.1:7", status: 431, reason: "too many fields"))
        counters.http(.slowWebSocketClosed(peer: "127.0.0.1:8", path: "/v1/streams/show:a", queuedBytes: 1 << 20))
        counters.hlsRequest(show: true)
        counters.hlsRequest(show: false)
        counters.hlsRequest(show: false)
        _ = counters.hlsAnswered(.response(.status(.unauthorized)))
        _ = counters.hlsAnswered(.response(.status(.ok)))
        let refusals = counters.refusalCounts.map { "\($0.key.proto) \($0.key.reason) \($0.value)" }.sorted()
        #expect(refusals == ["hls 401 1", "http 431 1", "rtmp connection_limit 7", "rtmp publish_refused 1"])
        #expect(counters.slowWebSocketDrops == 1)
        #expect(counters.hlsRequests == (show: 1, publish: 2))
    }
}
