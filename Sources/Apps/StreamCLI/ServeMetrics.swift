import HTTP
import HTTPServer
import ICE
import IngestServer
import LiveHLS
import LiveProtocol
import Locking
import Metrics
import ShowServer
import Synchronization
import WebRTCServer

/// `stream serve`'s `GET /metrics` (docs/operations.md): Prometheus's text format 0.0.4 on a listener of its own,
/// loopback by default, never the public HTTP port.
///
/// A scrape mostly reads what the servers keep anyway: the ingest's statistics, the HTTP server's and the show
/// server's counts (one hop each to their loops), the LL-HLS origin's statistics. What only metrics need is counted
/// here as it passes: refusals and drops from the servers' events, and LL-HLS requests (an atomic add each, no lock
/// on a request's path).
enum ServeMetrics {
    static let listen = OptionSpec.value(
        "metrics-listen", valueName: "HOST:PORT|off",
        help: "Serve GET /metrics here, not on the HTTP port (default \(defaultListen); off: none).")

    /// Where metrics are served unless told otherwise: the port OpenTelemetry's Prometheus exporters use, on
    /// loopback, as what it shows (shows' names, counts) is for the operator.
    static let defaultListen = "127.0.0.1:9464"

    /// The most connections at once on the metrics listener: a scraper or two, and an operator's curl.
    static let maxConnections = 16

    /// Where metrics are served.
    struct Address {
        var host: String
        var port: Int
        /// Not asked for: when the default port is taken (another server on the machine), the server goes on
        /// without metrics rather than not starting.
        var isDefault: Bool
    }

    /// The metrics listener's address the arguments ask for; nil for `off`.
    /// - Throws: `CLIError.usage` for a bad address, or the public HTTP listener's own address.
    static func address(_ arguments: ParsedArguments, http: HTTPServer.Configuration?) throws -> Address? {
        let text = arguments.value(listen.name) ?? defaultListen
        if text == "off" { return nil }
        let (host, port) = try ServeCommand.hostPort(text, flag: "--\(listen.name)")
        for publicPort in [http?.listen?.port, http?.tlsListen?.port] where publicPort == port && port != 0 {
            throw CLIError.usage("--\(listen.name) \(text) is an HTTP listener's port: metrics need their own "
                                 + "(the default is \(defaultListen))")
        }
        return Address(host: host, port: port, isDefault: arguments.value(listen.name) == nil)
    }

    /// Starts the metrics listener and prints where it listens.
    /// - Returns: the server; nil when the default address is in use (said on the console).
    /// - Throws: `CLIError.failure` when an address asked for is in use.
    static func start(_ address: Address, sources: Sources, console: Console) throws -> HTTPServer? {
        var router = HTTPRouter()
        let cache = RenderCache()
        // The same two fields on every answer: encoded once.
        let fields = HTTPEncodedFields(["Content-Type": PrometheusText.contentType, "Cache-Control": "no-store"])
        // A fresh rendering is answered on the event loop (no task); an old one renders in a task, which reads
        // the other servers' loops.
        router.add(.get, "/metrics", .immediateOrLater { _ in
            if let body = cache.fresh() { return .response(HTTPResponse(encodedFields: fields, body: .bytes(body))) }
            return .later { pending in
                Task {
                    let body = await cache.body { Array(PrometheusText.render(await sources.families()).utf8) }
                    pending.respond(HTTPResponse(encodedFields: fields, body: .bytes(body)))
                }
            }
        })
        let configuration = HTTPServer.Configuration(listen: (address.host, address.port),
                                                     maxConnections: maxConnections,
                                                     onEvent: { console.print("metrics: \($0)") })
        let server: HTTPServer
        let ports: HTTPServer.BoundPorts
        do {
            server = try HTTPServer(configuration: configuration, router: router)
            ports = try runBlocking { try await server.start() }
        } catch {
            let problem = "cannot serve metrics on \(address.host):\(address.port): \(error)"
            guard address.isDefault else { throw CLIError.failure(problem) }
            console.print(problem + "; going on without /metrics (choose with --\(listen.name) HOST:PORT, or off)")
            return nil
        }
        let host = address.host.contains(":") ? "[\(address.host)]" : address.host
        console.print("Metrics on http://\(host):\(ports.http ?? address.port)/metrics")
        return server
    }

    /// How long a rendered exposition answers the scrapes after it: rendering reads every server (a hop to each of
    /// their loops) and costs ~0.3 ms of CPU in a release build, six times an answer from the cache on the event
    /// loop; several scrapers at once (a Prometheus pair, an agent, an operator's watch curl) share one rendering.
    static let renderInterval: Duration = .milliseconds(500)

    /// The last exposition (its bytes) and when it was rendered; a scrape within the interval of it gets it again.
    final class RenderCache: Sendable {
        private let last = Locked<(at: Int64, body: [UInt8])?>(nil)
        private let interval: Int64
        private let clock: @Sendable () -> Int64

        /// - Parameter clock: nanoseconds of a monotonic clock.
        init(interval: Duration = renderInterval, clock: @escaping @Sendable () -> Int64 = {
            MonotonicClock.nanoseconds
        }) {
            self.interval = interval.components.seconds * 1_000_000_000
                + interval.components.attoseconds / 1_000_000_000
            self.clock = clock
        }

        /// The cached body while it is fresh.
        func fresh() -> [UInt8]? {
            let now = clock()
            guard let cached = last.withLock({ $0 }), now - cached.at < interval else { return nil }
            return cached.body
        }

        /// The cached body while it is fresh, else what `render` makes now (kept for the next scrapes).
        func body(_ render: () async -> [UInt8]) async -> [UInt8] {
            if let body = fresh() { return body }
            let now = clock()
            let body = await render()
            last.withLock { $0 = (now, body) }
            return body
        }
    }

    /// Refusals, drops and LL-HLS requests, counted as their events pass (from any thread).
    final class Counters: Sendable {
        private let hlsShowRequests = Atomic<Int>(0)
        private let hlsPublishRequests = Atomic<Int>(0)
        private let slowWebSockets = Atomic<Int>(0)
        private let posterDecodes = Atomic<Int>(0)
        /// By protocol and reason: rare events (a refused publish, a 400), so a lock is cheap here.
        private let refusals = Locked<[Refusal: Int]>([:])

        struct Refusal: Hashable {
            var proto: String
            var reason: String
        }

        /// An LL-HLS request: of a show (with a media token) or of a plain publish.
        func hlsRequest(show: Bool) {
            if show {
                hlsShowRequests.wrappingAdd(1, ordering: .relaxed)
            } else {
                hlsPublishRequests.wrappingAdd(1, ordering: .relaxed)
            }
        }

        /// An LL-HLS answer: 401, 403 and 429 are refusals.
        func hlsAnswered(_ answer: HTTPRouter.ImmediateOrLater) -> HTTPRouter.ImmediateOrLater {
            if case .response(let response) = answer, [401, 403, 429].contains(response.status.code) {
                refused("hls", String(response.status.code))
            }
            return answer
        }

        func refused(_ proto: String, _ reason: String, count: Int = 1) {
            refusals.withLock { $0[Refusal(proto: proto, reason: reason), default: 0] += count }
        }

        /// What the ingest reports: refused publishes and connections past the limit.
        func ingest(_ event: ServerEvent) {
            switch event {
            case .publishRefused: refused("rtmp", "publish_refused")
            case .connectionsRefused(let count, _, _, _): refused("rtmp", "connection_limit", count: count)
            default: break
            }
        }

        /// What the HTTP server reports: rejected requests by status, WebSockets closed for reading too slowly.
        func http(_ event: HTTPServerEvent) {
            switch event {
            case .requestRejected(_, let status, _): refused("http", String(status))
            case .slowWebSocketClosed: slowWebSockets.wrappingAdd(1, ordering: .relaxed)
            case .handlerFailed, .connectionFailed: break
            }
        }

        var hlsRequests: (show: Int, publish: Int) {
            (hlsShowRequests.load(ordering: .relaxed), hlsPublishRequests.load(ordering: .relaxed))
        }

        var slowWebSocketDrops: Int { slowWebSockets.load(ordering: .relaxed) }

        /// A poster was decoded (``ServePosters``).
        func posterDecoded() {
            posterDecodes.wrappingAdd(1, ordering: .relaxed)
        }

        var posterDecodeCount: Int { posterDecodes.load(ordering: .relaxed) }

        var refusalCounts: [Refusal: Int] { refusals.withLock { $0 } }
    }

    /// What a scrape reads.
    struct Sources: Sendable {
        let counters: Counters
        let ingest: RTMPServer
        let http: HTTPServer?
        let hls: HLSOrigin?
        let shows: ShowServer?
        let webRTC: WebRTCServer?

        func families() async -> [MetricFamily] {
            let rtmp = ingest.statistics
            let web = await http?.statistics() ?? HTTPServer.Statistics(httpConnections: 0, webSockets: 0)
            let shows = await self.shows?.metrics() ?? ShowMetrics()
            let rtc = await webRTC?.statistics()
            let origin = hls?.statistics
            // A show's pictures live in its directory; plain publishes' directories hold a "/" (APP/TAG).
            var showRequests: [String: Int] = [:]
            for (id, count) in hls?.requestCounts ?? [:] where !id.directory.contains("/") {
                showRequests[id.directory, default: 0] += count
            }
            let hlsRequests = counters.hlsRequests
            var refusals = counters.refusalCounts
            for code in ErrorCode.allCases {
                let key = Counters.Refusal(proto: "live", reason: code.rawValue)
                refusals[key, default: 0] += shows.refusals[code] ?? 0
            }
            if let rtc {
                refusals[Counters.Refusal(proto: "webrtc", reason: "session_limit"), default: 0] += rtc.refusedFull
            }
            for (proto, reason) in [("rtmp", "publish_refused"), ("rtmp", "connection_limit"), ("hls", "401"),
                                    ("hls", "403"), ("hls", "429")] {
                refusals[Counters.Refusal(proto: proto, reason: reason), default: 0] += 0
            }
            // Datagrams on the WebRTC port that reached no session (the routes' counts only grow).
            let webRTCDrops = rtc.map { rtc in
                DatagramRoutes<Int>.Drop.allCases.map { drop in
                    MetricSample(rtc.drops[drop.rawValue] ?? 0,
                                 labels: [MetricLabel("reason", "webrtc_" + Self.snakeCase(drop.rawValue))])
                }
            } ?? []
            let sortedRefusals = refusals.sorted { ($0.key.proto, $0.key.reason) < ($1.key.proto, $1.key.reason) }
            return [
                .gauge("stream_connections", help: "Connections open now, by protocol.", [
                    MetricSample(rtmp.connections, labels: [MetricLabel("protocol", "rtmp")]),
                    MetricSample(web.httpConnections, labels: [MetricLabel("protocol", "http")]),
                    MetricSample(web.webSockets, labels: [MetricLabel("protocol", "websocket")]),
                ]),
                .gauge("stream_publishes_live", help: "RTMP publishes live now.", Double(rtmp.publishers)),
                .gauge("stream_rtmp_players", help: "RTMP players attached to a publish now.", Double(rtmp.players)),
                .gauge("stream_webrtc_sessions",
                       help: "WebRTC sessions open now on the UDP port: WHIP publishers and WHEP players.",
                       rtc.map { rtc in [false, true].map { playback in
                           MetricSample(rtc.sessions.count { $0.playback == playback },
                                        labels: [MetricLabel("kind", playback ? "whep" : "whip")])
                       } } ?? []),
                .counter("stream_received_bytes_total", help: "Bytes read from peers, by protocol.", [
                    MetricSample(rtmp.bytesReceived, labels: [MetricLabel("protocol", "rtmp")]),
                    MetricSample(web.httpBytesReceived, labels: [MetricLabel("protocol", "http")]),
                    MetricSample(web.webSocketBytesReceived, labels: [MetricLabel("protocol", "websocket")]),
                ]),
                .counter("stream_sent_bytes_total", help: "Bytes queued to peers, by protocol.", [
                    MetricSample(rtmp.bytesSent, labels: [MetricLabel("protocol", "rtmp")]),
                    MetricSample(web.httpBytesSent, labels: [MetricLabel("protocol", "http")]),
                    MetricSample(web.webSocketBytesSent, labels: [MetricLabel("protocol", "websocket")]),
                ]),
                .counter("stream_hls_requests_total",
                         help: "LL-HLS requests (playlists, parts, init segments): of shows or plain publishes.", [
                    MetricSample(hlsRequests.show, labels: [MetricLabel("route", "show")]),
                    MetricSample(hlsRequests.publish, labels: [MetricLabel("route", "publish")]),
                ]),
                .gauge("stream_hls_requests_held", help: "LL-HLS requests held until their part or playlist exists.",
                       Double(origin?.heldRequests ?? 0)),
                .counter("stream_hls_held_requests_answered_total",
                         help: "Held LL-HLS requests answered: released by what they waited for, or timed out (503).", [
                    MetricSample(origin?.releasedRequests ?? 0, labels: [MetricLabel("outcome", "released")]),
                    MetricSample(origin?.timedOutRequests ?? 0, labels: [MetricLabel("outcome", "timed_out")]),
                ]),
                .gauge("stream_hls_streams", help: "Streams the LL-HLS origin serves (live or recently ended).",
                       Double(origin?.streams ?? 0)),
                .gauge("stream_shows_live", help: "Live shows now.", Double(shows.liveShowCount)),
                .counter("stream_poster_decodes_total",
                         help: "Posters decoded from a show's keyframe (a cached poster is not counted).",
                         Double(counters.posterDecodeCount)),
                .gauge("stream_show_sessions", help: "Live-show protocol sessions open now (joined or not).",
                       Double(shows.sessions)),
                .gauge("stream_show_watchers",
                       help: "WebSocket sessions joined to each live show (at most \(ShowMetrics.perShowLimit) "
                           + "shows, most first).",
                       shows.liveShows.map { MetricSample($0.sessions, labels: [MetricLabel("show", $0.name)]) }),
                .gauge("stream_show_viewers",
                       help: "Distinct people watching each live show (as in its status), for the same shows.",
                       shows.liveShows.map { MetricSample($0.viewers, labels: [MetricLabel("show", $0.name)]) }),
                .counter("stream_show_hls_requests_total",
                         help: "LL-HLS requests each live show's pictures were asked (media token checked), for the "
                             + "same shows.",
                         shows.liveShows.map { show in
                    MetricSample(showRequests[show.name] ?? 0, labels: [MetricLabel("show", show.name)])
                }),
                .counter("stream_chat_messages_total", help: "Chat messages accepted (committed and sent).",
                         Double(shows.chatMessages)),
                .counter("stream_deliveries_total",
                         help: "Live-show protocol messages handed to sessions (a broadcast counts per session).",
                         Double(shows.deliveries)),
                .counter("stream_drops_total", help: "Peers or media dropped, by reason.", [
                    MetricSample(counters.slowWebSocketDrops, labels: [MetricLabel("reason", "slow_websocket")]),
                    MetricSample(shows.malformedDrops, labels: [MetricLabel("reason", "malformed_requests")]),
                    MetricSample(rtmp.playerSkips, labels: [MetricLabel("reason", "rtmp_player_behind")]),
                ] + webRTCDrops),
                .counter("stream_refusals_total", help: "Requests refused, by protocol and reason.",
                         sortedRefusals.map { entry in
                    MetricSample(entry.value, labels: [MetricLabel("protocol", entry.key.proto),
                                                       MetricLabel("reason", entry.key.reason)])
                }),
                .histogram("stream_store_commit_seconds",
                           help: "Time the show store took to commit a transaction of writes.", shows.storeCommits),
            ]
        }

        /// `unknownUfrag` → `unknown_ufrag`: Prometheus label values are snake case by convention.
        static func snakeCase(_ name: String) -> String {
            var text = ""
            for character in name {
                if character.isUppercase { text += "_" + character.lowercased() } else { text.append(character) }
            }
            return text
        }
    }
}
