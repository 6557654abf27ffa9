import Broadcast
import Testing

/// Adaptive bitrate decisions from synthetic samples.
struct AdaptiveBitrateTests {
    private static func sample(queue: Int64, throughput: Int) -> AdaptiveBitrate.Sample {
        AdaptiveBitrate.Sample(queueMilliseconds: queue, throughputKbps: throughput, audioKbps: 128)
    }

    @Test func followsTheThroughputDownWhenTheQueueGrows() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000))
        #expect(controller.update(Self.sample(queue: 50, throughput: 3128)) == nil)
        // The link carries 1128 kbps: video gets 80 % of its share (1000 kbps).
        #expect(controller.update(Self.sample(queue: 400, throughput: 1128)) == 800)
        // Still growing at the same throughput: at least a 10 % cut each time.
        #expect(controller.update(Self.sample(queue: 600, throughput: 1128)) == 720)
    }

    @Test func neverGoesBelowTheFloor() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, minimumKbps: 600))
        #expect(controller.update(Self.sample(queue: 800, throughput: 100)) == 600)
        #expect(controller.update(Self.sample(queue: 900, throughput: 100)) == nil)
        #expect(controller.currentKbps == 600)
    }

    @Test func climbsBackGraduallyAfterTheLinkRecovers() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, samplesBeforeIncrease: 3,
                                                              increaseFraction: 0.1))
        _ = controller.update(Self.sample(queue: 500, throughput: 1128))
        #expect(controller.currentKbps == 800)
        #expect(controller.update(Self.sample(queue: 20, throughput: 900)) == nil)
        #expect(controller.update(Self.sample(queue: 20, throughput: 900)) == nil)
        #expect(controller.update(Self.sample(queue: 20, throughput: 900)) == 1100)
        #expect(controller.update(Self.sample(queue: 20, throughput: 1200)) == 1400)
        // Between the thresholds: hold, and the clear streak restarts.
        #expect(controller.update(Self.sample(queue: 200, throughput: 1500)) == nil)
        #expect(controller.update(Self.sample(queue: 20, throughput: 1500)) == nil)
        for _ in 0..<20 { _ = controller.update(Self.sample(queue: 20, throughput: 3000)) }
        #expect(controller.currentKbps == 3000)
    }

    @Test func aShrinkingQueueIsNotCongestion() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000))
        _ = controller.update(Self.sample(queue: 800, throughput: 2128))
        #expect(controller.update(Self.sample(queue: 500, throughput: 2128)) == nil)
    }
}
