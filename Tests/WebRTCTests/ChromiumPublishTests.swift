import TestSupport
import Testing
import Transport
import WebRTC

/// The publisher against Chromium's WebRTC stack (libwebrtc), a second independent receiver.
struct ChromiumPublishTests {
    /// 12 s of the test sources into a Chromium page: `getStats()` shows the frames decoded rising every second of
    /// the last ten, at the picture's size, with no freeze, and audio arriving.
    @Test(.timeLimit(.minutes(1)))
    func chromiumPlaysTheBroadcastWithoutFreezing() async throws {
        let endpoint = try ChromiumEndpoint.start()
        let source = try TestMediaSource()
        let loop = try EventLoop(name: "webrtc-chromium")
        defer { loop.shutdown() }
        let publisher = try await WebRTCPublisher.make(
            configuration: .init(bindHost: "127.0.0.1", profileLevelID: source.profileLevelID, videoBitrateKbps: 1000),
            on: loop)
        let answer = try await endpoint.post(try await publisher.makeOffer())
        try await publisher.accept(answer: answer)
        try await publisher.waitUntilConnected()
        async let following: Void = source.follow(publisher.events)
        try await source.run(seconds: 12, to: publisher)
        try await endpoint.delete()
        await publisher.close()
        await following
        let results = try endpoint.results()

        let samples = (results["samples"] as? [[String: Any]] ?? []).filter { $0["framesDecoded"] != nil }
        let decoded = samples.map { $0["framesDecoded"] as? Int ?? 0 }
        print("chromium: frames decoded per second-sample \(decoded), last sample \(samples.last ?? [:])")
        #expect(samples.count >= 10, "getStats samples: \(results["samples"] ?? []); log: \(endpoint.log.suffix(2000))")
        let lastTen = Array(decoded.suffix(10))
        #expect(zip(lastTen, lastTen.dropFirst()).allSatisfy { $1 > $0 }, "frames decoded: \(decoded)")
        #expect((decoded.last ?? 0) >= 300)
        let last = samples.last ?? [:]
        #expect(last["frameWidth"] as? Int == 640)
        #expect(last["frameHeight"] as? Int == 360)
        #expect(last["freezeCount"] as? Int == 0, "\(last)")
        #expect((last["audioSamples"] as? Int ?? 0) > 48000 * 5, "\(last)")
    }
}
