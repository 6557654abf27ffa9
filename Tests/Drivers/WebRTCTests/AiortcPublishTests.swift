import Foundation
import Testing
import TestSupport

/// The publisher against aiortc, an independent WebRTC stack, as a WHIP endpoint on loopback.
@Suite(.serialized, .startsPeers)
struct AiortcPublishTests {
    /// Publishes 4 s of the test sources; aiortc decodes them.
    @Test(.timeLimit(.minutes(1)))
    func aiortcDecodesThePatternAndTheToneWithinAFrameOrTwo() async throws {
        let endpoint = try AiortcEndpoint.start()
        let source = try TestMediaSource()
        let (statistics, results) = try await endpoint.broadcast(source, seconds: 4, videoBitrateKbps: 1000)

        let frames = results["frames"] as? Int ?? 0
        #expect(frames >= 100, "aiortc decoded \(frames) of 120 frames; log: \(endpoint.log.suffix(2000))")
        #expect(statistics.videoFrames == 120)
        #expect(results["deleted"] as? Bool == true)
        // The tone: 440 Hz ± 5 %.
        let hertz = results["audio_hz"] as? Double ?? 0
        #expect(abs(hertz - 440) <= 22, "the audio decoded to \(hertz) Hz")
        #expect(results["audio_rate"] as? Int == 48000)

        let captureTimes = source.captureTimes.withLock { $0 }
        let latencies = try DecodedFrames.check(endpoint, results, pattern: source.pattern, width: 640, height: 360) {
            captureTimes[$0]
        }
        let worst = latencies.max() ?? 1
        let median = latencies.sorted()[latencies.count / 2]
        print("aiortc: \(frames) frames decoded, tone at \(hertz) Hz, capture to decode median "
            + "\(Int(median * 1000)) ms, worst \(Int(worst * 1000)) ms over \(latencies.count) frames")
        #expect(worst < 0.3, "capture to decoded frame took up to \(Int(worst * 1000)) ms: \(latencies)")
        #expect(latencies.allSatisfy { $0 > 0 })
    }

    /// Through a relay that loses 5 % of media datagrams each way and delays everything by 50 ms for 8 s (and
    /// loses 0.3 s of video for good halfway), then heals: NACKs are answered, PLI brings a keyframe, frames keep being
    /// decoded, and the bitrate comes down and climbs back.
    @Test(.timeLimit(.minutes(1)))
    func aLossyPathIsRepairedAndTheBitrateFollowsIt() async throws {
        let endpoint = try AiortcEndpoint.start(loss: 0.05, delay: 0.05, lossSeconds: 8)
        let source = try TestMediaSource(bitrateKbps: 1500)
        // Small packets: aiortc asks for a keyframe only 512 packets after an unrepaired gap, and the test pattern
        // compresses well; at 200 bytes a packet that is about two seconds.
        let (statistics, results) = try await endpoint.broadcast(source, seconds: 20, videoBitrateKbps: 1500,
                                                                 maximumPayloadSize: 200)

        #expect((results["relay_dropped"] as? Int ?? 0) > 20)
        #expect(statistics.nacksReceived > 0, "\(statistics)")
        #expect(statistics.retransmitted > 0, "\(statistics)")
        #expect(statistics.keyframeRequests >= 1, "\(statistics)")
        // One keyframe at the start, at least one more for the PLI.
        #expect(source.forcedKeyframes.withLock { $0 } >= 2)
        let perSecond = results["per_second"] as? [Int] ?? []
        // Frames decoded keep rising: aiortc waits out the lost 0.3 s for 512 packets (about 3.5 s, once in a while
        // two such waits when its first PLI's keyframe is caught by the loss too) before it decodes again; and at a
        // full rate once the path heals at 8 s. (With 16 s and at most 5 zero seconds, 2 of 7 runs here fell short.)
        #expect(perSecond.count >= 18, "\(perSecond)")
        #expect(perSecond.dropLast().filter { $0 == 0 }.count <= 8, "frames decoded per second: \(perSecond)")
        #expect(perSecond.dropLast().suffix(5).allSatisfy { $0 >= 20 }, "frames decoded per second: \(perSecond)")
        let bitrates = source.appliedBitrates.withLock { $0 }
        print("lossy relay: \(results["relay_dropped"] ?? 0) datagrams dropped, \(statistics.nacksReceived) NACKs, "
            + "\(statistics.retransmitted) resent, \(statistics.keyframeRequests) keyframe requests, "
            + "frames per second \(perSecond), bitrates \(bitrates)")
        let lowest = bitrates.min() ?? 1500
        #expect(lowest < 1500 * 9 / 10, "the estimate never came down: \(bitrates)")
        let lowestIndex = bitrates.firstIndex(of: lowest) ?? 0
        #expect((bitrates.last ?? 0) > lowest, "the estimate never climbed back: \(bitrates)")
        #expect(bitrates[lowestIndex...].contains { $0 > lowest })
    }
}
