import Engine
import HTTPClient
import StreamCore
import Transport
import WebRTC
import WHIP

/// WHIP destinations of `stream broadcast`: the sink for an http(s) URL and its token, and its closing line.
enum WHIPDestinations {
    /// The event loop of the broadcast's WebRTC sessions (UDP sockets, timers).
    static func loop() throws(CLIError) -> EventLoop {
        do {
            return try EventLoop(name: "webrtc")
        } catch {
            throw CLIError.failure("cannot start the WebRTC event loop: \(error)")
        }
    }

    /// A sink publishing to `target`'s endpoint with its key as the bearer token, over the HTTP client (https
    /// verified against the system store plus `caFile`, as RTMPS is).
    static func sink(_ target: StreamCredentials, settings: StreamSettings, caFile: String?,
                     loop: EventLoop) throws -> WHIPSink {
        let endpoint = try WHIPURL(parsing: target.url.tcUrl)
        let client: HTTPClient
        do {
            client = try HTTPClient(options: HTTPClient.Options(caFile: caFile), loop: loop)
        } catch {
            throw CLIError.failure("cannot start the HTTP client: \(error)")
        }
        let configuration = WebRTCPublisher.Configuration(videoBitrateKbps: settings.videoBitrateKbps,
                                                          audioBitrateKbps: settings.audioBitrateKbps)
        return WHIPSink(endpoint: endpoint, token: target.streamKey, configuration: configuration,
                        transport: HTTPClientWHIPTransport(client: client), loop: loop)
    }

    /// `WHIP https://host/whip: 1 session, 12 NACKs (40 packets resent), 2 keyframe requests, loss 0.4 %,
    /// round trip 31 ms, estimate 2900 kbps`; nil when no session was ever made.
    static func summary(_ sink: WHIPSink) async -> String? {
        let (sessions, counters) = await sink.statistics()
        guard sessions > 0 else { return nil }
        var parts = ["\(sessions) session\(sessions == 1 ? "" : "s")",
                     "\(counters.nacksReceived) NACKs (\(counters.retransmitted) packets resent)",
                     "\(counters.keyframeRequests) keyframe requests",
                     "loss \(Double(Int(counters.reportedLoss * 1000)) / 10) %"]
        if let roundTrip = counters.roundTrip { parts.append("round trip \(Int(roundTrip * 1000)) ms") }
        if counters.estimateKbps > 0 { parts.append("estimate \(counters.estimateKbps) kbps") }
        return "\(sink.label): " + parts.joined(separator: ", ")
    }
}
