import Testing
import Media

@Suite struct LatestFrameSlotTests {
    @Test func newerFrameReplacesAndDropsTheOlder() throws {
        let pool = FramePool(format: .nv12, width: 64, height: 48, maxCount: 3)
        let slot = LatestFrameSlot()
        #expect(slot.take() == nil)
        for pts in Int64(1)...3 {
            slot.put(try #require(pool.makeFrame(pts: pts)))
        }
        #expect(pool.statistics.inUse == 1)  // the two dropped frames went straight back to the pool
        let latest = try #require(slot.take())
        #expect(latest.pts == 3)
        #expect(slot.take() == nil)
        #expect(slot.statistics == LatestFrameSlot.Statistics(delivered: 3, taken: 1, dropped: 2))
    }

    @Test func producerOnAnotherTaskNeverPilesUpFrames() async throws {
        let pool = FramePool(format: .i420, width: 32, height: 32, maxCount: 4)
        let slot = LatestFrameSlot()
        let producer = Task {
            var delivered = 0
            for pts in Int64(0)..<500 {
                if let frame = pool.makeFrame(pts: pts) {
                    slot.put(frame)
                    delivered += 1
                }
            }
            return delivered
        }
        var lastPTS: Int64 = -1
        for _ in 0..<200 {
            if let frame = slot.take() {
                #expect(frame.pts > lastPTS)  // frames come out newest-first, never older than one seen
                lastPTS = frame.pts
            }
            await Task.yield()
        }
        let delivered = await producer.value
        _ = slot.take()
        let statistics = slot.statistics
        #expect(statistics.delivered == delivered)
        #expect(statistics.delivered == statistics.taken + statistics.dropped)
        #expect(pool.statistics.inUse == 0)
        #expect(pool.statistics.peakInUse <= 3)  // one in the slot, one being put, one being read
    }
}
