import Transport
import WebRTC

extension WHIPTestEndpoint {
    /// Publishes `seconds` of `source` to this endpoint on a loop of its own: offer, answer, connect, media in real
    /// time, DELETE, close.
    /// - Parameter maximumPayloadSize: the publisher's RTP payload limit.
    /// - Returns: the publisher's counters at the end of the media, and what the endpoint wrote.
    func broadcast(_ source: TestMediaSource, seconds: Double, videoBitrateKbps: Int,
                   maximumPayloadSize: Int = 1200) async throws -> (WebRTCStatistics, [String: Any]) {
        let loop = try EventLoop(name: "webrtc-test")
        defer { loop.shutdown() }
        let publisher = try await WebRTCPublisher.make(
            configuration: .init(bindHost: "127.0.0.1", profileLevelID: source.profileLevelID,
                                 videoBitrateKbps: videoBitrateKbps, maximumPayloadSize: maximumPayloadSize),
            on: loop)
        try await publisher.accept(answer: try await post(try await publisher.makeOffer()))
        try await publisher.waitUntilConnected()
        async let following: Void = source.follow(publisher.events)
        try await source.run(seconds: seconds, to: publisher)
        let statistics = await publisher.statistics()
        try await delete()
        await publisher.close()
        await following
        return (statistics, try results())
    }
}
