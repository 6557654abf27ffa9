import ByteIO
import Engine
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTPClient
import ICE
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
                     stun: TransportAddress?, loop: EventLoop) throws -> WHIPSink {
        let endpoint = try WHIPURL(parsing: target.url.tcUrl)
        let client: HTTPClient
        do {
            client = try HTTPClient(options: HTTPClient.Options(caFile: caFile), loop: loop)
        } catch {
            throw CLIError.failure("cannot start the HTTP client: \(error)")
        }
        let configuration = WebRTCPublisher.Configuration(stunServer: stun,
                                                          videoBitrateKbps: settings.videoBitrateKbps,
                                                          audioBitrateKbps: settings.audioBitrateKbps)
        return WHIPSink(endpoint: endpoint, token: target.streamKey, configuration: configuration,
                        transport: HTTPClientWHIPTransport(client: client), loop: loop)
    }

    /// The STUN server of `--stun HOST:PORT` (`[v6]:PORT` for IPv6), its name resolved now (IPv4 first).
    /// - Throws: `CLIError.usage` for a malformed value or a name that does not resolve.
    static func stunServer(_ text: String) throws(CLIError) -> TransportAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0
        else { throw CLIError.usage("--stun \(text.prefix(80)) is not HOST:PORT (e.g. stun.example.com:3478)") }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let address = TransportAddress(host: host, port: port) { return address }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard !host.isEmpty, getaddrinfo(host, nil, &hints, &list) == 0, let list else {
            throw CLIError.usage("--stun: cannot resolve \(host.prefix(80))")
        }
        defer { freeaddrinfo(list) }
        var found: [TransportAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry, let socketAddress = current.pointee.ai_addr {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let named = getnameinfo(socketAddress, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil,
                                    0, NI_NUMERICHOST) == 0
            let numeric = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if named, let address = TransportAddress(host: numeric, port: port) {
                found.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard let address = found.first(where: { !$0.isIPv6 }) ?? found.first else {
            throw CLIError.usage("--stun: \(host.prefix(80)) has no address")
        }
        return address
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
