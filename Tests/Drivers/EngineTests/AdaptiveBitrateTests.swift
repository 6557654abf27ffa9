import Engine
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
        // Still growing: the queue holds media from before the cut, so two samples pass without another cut; the
        // capacity estimate follows what the busy link carries meanwhile...
        #expect(controller.update(Self.sample(queue: 600, throughput: 900)) == nil)
        #expect(controller.estimatedCapacityKbps == 772)
        #expect(controller.update(Self.sample(queue: 650, throughput: 1128)) == nil)
        #expect(controller.estimatedCapacityKbps == 1000)
        // ...then, still growing at the same throughput: at least a 10 % cut each time.
        #expect(controller.update(Self.sample(queue: 700, throughput: 1128)) == 720)
    }

    @Test func neverGoesBelowTheFloor() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, minimumKbps: 600))
        #expect(controller.update(Self.sample(queue: 800, throughput: 100)) == 600)
        #expect(controller.update(Self.sample(queue: 900, throughput: 100)) == nil)
        #expect(controller.currentKbps == 600)
    }

    @Test func aLinkWithNoRoomForVideoKeepsTheFloorUntilItProbes() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, minimumKbps: 300,
                                                              samplesBeforeIncrease: 3, increaseFraction: 0.1))
        // Congested at a throughput that leaves video no share: the floor, and a capacity estimate of 0.
        _ = controller.update(Self.sample(queue: 500, throughput: 100))
        #expect(controller.currentKbps == 300)
        #expect(controller.estimatedCapacityKbps == 0)
        // The ceiling is then the floor: only probing climbs, one step per `samplesBeforeProbe` clear samples.
        #expect(controller.ceilingKbps == 300)
    }

    @Test func climbsBackToJustUnderTheMeasuredCapacityAndStaysThere() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, samplesBeforeIncrease: 3,
                                                              increaseFraction: 0.1, samplesBeforeProbe: 1000))
        // The link carries 1128 kbit/s: video's share is 1000, the bitrate 80 % of it, the ceiling 90 %.
        _ = controller.update(Self.sample(queue: 500, throughput: 1128))
        #expect(controller.currentKbps == 800)
        #expect(controller.estimatedCapacityKbps == 1000)
        #expect(controller.ceilingKbps == 900)
        #expect(controller.update(Self.sample(queue: 20, throughput: 900)) == nil)
        #expect(controller.update(Self.sample(queue: 20, throughput: 900)) == nil)
        #expect(controller.update(Self.sample(queue: 20, throughput: 900)) == 900)
        // At the ceiling it holds: no climbing into the same congestion again.
        for _ in 0..<50 { #expect(controller.update(Self.sample(queue: 20, throughput: 1028)) == nil) }
        #expect(controller.currentKbps == 900)
        // Between the thresholds: hold.
        #expect(controller.update(Self.sample(queue: 200, throughput: 1028)) == nil)
    }

    @Test func probesOneStepAboveTheCeilingAfterALongClearSpellAndFindsAFasterLink() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, samplesBeforeIncrease: 3,
                                                              increaseFraction: 0.1, samplesBeforeProbe: 4))
        _ = controller.update(Self.sample(queue: 500, throughput: 1128))
        for _ in 0..<3 { _ = controller.update(Self.sample(queue: 20, throughput: 1028)) }
        #expect(controller.currentKbps == 900)
        // Three clear samples at the ceiling change nothing; the fourth raises the estimate by a step (300).
        for _ in 0..<3 { #expect(controller.update(Self.sample(queue: 20, throughput: 1028)) == nil) }
        #expect(controller.update(Self.sample(queue: 20, throughput: 1028)) == 1170)
        #expect(controller.estimatedCapacityKbps == 1300)
        // The link really is faster now: probing keeps finding room until the target.
        for _ in 0..<200 { _ = controller.update(Self.sample(queue: 20, throughput: 3128)) }
        #expect(controller.currentKbps == 3000)
        // A probe that congests measures the link again and falls back under it.
        _ = controller.update(Self.sample(queue: 400, throughput: 2128))
        #expect(controller.estimatedCapacityKbps == 2000)
        #expect(controller.currentKbps == 1600)
        #expect(controller.ceilingKbps == 1800)
    }

    @Test func framesDroppedByTheQueueAreCongestionEvenWhenTheDropEmptiedIt() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000))
        let sample = AdaptiveBitrate.Sample(queueMilliseconds: 0, throughputKbps: 1128, audioKbps: 128,
                                            droppedVideoFrames: 12)
        #expect(controller.update(sample) == 800)
        // And a clear queue with drops in the interval is not a reason to climb.
        var climbing = AdaptiveBitrate(configuration: .init(targetKbps: 3000, samplesBeforeIncrease: 1))
        _ = climbing.update(Self.sample(queue: 500, throughput: 2128))
        for _ in 0..<5 { _ = climbing.update(Self.sample(queue: 0, throughput: 2128)) }
        let level = climbing.currentKbps
        _ = climbing.update(AdaptiveBitrate.Sample(queueMilliseconds: 0, throughputKbps: 2128, audioKbps: 128,
                                                   droppedVideoFrames: 3))
        #expect(climbing.currentKbps <= level)
    }

    @Test func aShrinkingQueueIsNotCongestion() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000))
        _ = controller.update(Self.sample(queue: 800, throughput: 2128))
        #expect(controller.update(Self.sample(queue: 500, throughput: 2128)) == nil)
    }

    @Test func aStalledLinkIsNotACapacityAndAReconnectClimbsBackToTheTarget() {
        // Issue 14, defect 1: an ingest frozen for 15 s. The queue grows while nothing is acknowledged: the bitrate
        // steps down to the floor, but a link that carries nothing measured no capacity.
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 1000))
        var queue: Int64 = 300
        for _ in 0..<12 {
            queue += 1000
            _ = controller.update(Self.sample(queue: queue, throughput: 0))
        }
        #expect(controller.currentKbps == 200)
        #expect(controller.estimatedCapacityKbps == nil)
        // Reconnected: the new connection keeps up, and the climb goes all the way back.
        controller.linkRestarted()
        var reached: [Int] = []
        for _ in 0..<20 {
            _ = controller.update(Self.sample(queue: 0, throughput: controller.currentKbps + 128))
            reached.append(controller.currentKbps)
        }
        #expect(reached.last == 1000, "\(reached)")
        // Five clear samples to the first step, then a step (a tenth of the target) per sample: 12 samples.
        #expect(reached.firstIndex(of: 1000) == 11, "\(reached)")
    }

    @Test func aReconnectForgetsTheCapacityMeasuredOnTheOldConnection() {
        var controller = AdaptiveBitrate(configuration: .init(targetKbps: 3000, samplesBeforeIncrease: 1))
        // A slow first second while the buffers filled: 428 kbps went through before the link stalled.
        _ = controller.update(Self.sample(queue: 400, throughput: 428))
        #expect(controller.estimatedCapacityKbps == 300)
        #expect(controller.ceilingKbps == 600)
        controller.linkRestarted()
        #expect(controller.estimatedCapacityKbps == nil && controller.ceilingKbps == 3000)
        for _ in 0..<40 { _ = controller.update(Self.sample(queue: 0, throughput: 3128)) }
        #expect(controller.currentKbps == 3000)
    }
}
