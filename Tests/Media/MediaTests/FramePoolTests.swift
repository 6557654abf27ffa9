import Testing
import Media

@Suite struct FramePoolTests {
    @Test func releasedFramesAreReused() {
        let pool = FramePool(format: .i420, width: 64, height: 48, maxCount: 2)
        for index in 0..<10 {
            let frame = pool.makeFrame(pts: Int64(index))
            #expect(frame != nil)
        }
        let statistics = pool.statistics
        #expect(statistics.allocations == 1)
        #expect(statistics.reuses == 9)
        #expect(statistics.inUse == 0)
        #expect(statistics.peakInUse == 1)
    }

    @Test func exhaustedPoolReturnsNilAndCountsIt() throws {
        let pool = FramePool(format: .bgra, width: 32, height: 32, maxCount: 2)
        let first = try #require(pool.makeFrame(pts: 0))
        var second = pool.makeFrame(pts: 1)
        #expect(second != nil)
        #expect(pool.makeFrame(pts: 2) == nil)
        #expect(pool.statistics.exhaustions == 1)
        #expect(pool.statistics.inUse == 2)
        second = nil
        #expect(second == nil)
        let third = try #require(pool.makeFrame(pts: 3))
        #expect(!third.sharesStorage(with: first))
        #expect(pool.statistics.allocations == 2)
        #expect(pool.statistics.reuses == 1)
    }

    @Test func framesReleasedOnOtherThreadsReturnToThePool() async throws {
        let pool = FramePool(format: .i420, width: 32, height: 32, maxCount: 8)
        for round in 0..<20 {
            var frames: [VideoFrame] = []
            for index in 0..<8 {
                frames.append(try #require(pool.makeFrame(pts: Int64(round * 8 + index))))
            }
            await withTaskGroup(of: Int64.self) { group in
                for frame in frames {
                    group.addTask { frame.pts }
                }
                frames.removeAll()
                for await _ in group {}
            }
        }
        let statistics = pool.statistics
        #expect(statistics.inUse == 0)
        #expect(statistics.allocations == 8)
        #expect(statistics.reuses == 8 * 19)
    }
}
