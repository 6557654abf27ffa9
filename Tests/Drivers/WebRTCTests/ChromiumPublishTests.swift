import Testing
import TestSupport

/// The publisher against Chromium's WebRTC stack (libwebrtc), a second independent receiver.
@Suite(.startsPeers) struct ChromiumPublishTests {
    /// 12 s of the test sources into a Chromium page: `getStats()` shows the frames decoded rising every second of
    /// the last ten, at the picture's size, with no freeze, and the tone's audio energy.
    @Test(.timeLimit(.minutes(1)))
    func chromiumPlaysTheBroadcastWithoutFreezing() async throws {
        let endpoint = try ChromiumEndpoint.start()
        let source = try TestMediaSource()
        let (_, results) = try await endpoint.broadcast(source, seconds: 12, videoBitrateKbps: 1000)

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
        // The tone at half scale for about 11 s: an energy (the integral of the squared level) of about 1.4 per
        // channel; silence would be 0.
        #expect((last["audioEnergy"] as? Double ?? 0) > 0.5, "\(last)")
    }
}
