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

    @Test func copiesShareStorageUntilTheLastOneGoes() throws {
        let pool = FramePool(format: .nv12, width: 16, height: 16, maxCount: 1)
        var frame: VideoFrame? = pool.makeFrame(pts: 0)
        #expect(frame != nil)
        let copy = frame
        #expect(copy?.sharesStorage(with: try #require(frame)) == true)
        frame = nil
        #expect(pool.statistics.inUse == 1)  // the copy still holds the buffer
        _ = consume copy
        #expect(pool.statistics.inUse == 0)
    }

    @Test func writingRequiresTheOnlyReference() throws {
        let pool = FramePool(format: .bgra, width: 8, height: 8, maxCount: 2)
        var frame = try #require(pool.makeFrame(pts: 0))
        let uniqueAlone = frame.isUniquelyReferenced
        #expect(uniqueAlone)
        let shared = frame
        let uniqueWhenShared = frame.isUniquelyReferenced
        #expect(!uniqueWhenShared)
        #expect(shared.pts == 0)
        _ = consume shared  // end the copy's lifetime explicitly (debug builds keep locals to the end of scope)
        let uniqueAgain = frame.isUniquelyReferenced
        #expect(uniqueAgain)
        frame.fill(BGRAColor(b: 1, g: 2, r: 3))
        #expect(frame.bgra(x: 7, y: 7) == BGRAColor(b: 1, g: 2, r: 3))
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

    @Test func pcmPoolReusesBuffers() throws {
        let format = PCMFormat(sampleFormat: .int16, sampleRate: 48_000, channels: 2)
        let pool = PCMBufferPool(format: format, frameCount: 1024, maxCount: 2)
        for index in 0..<5 {
            let buffer = try #require(pool.makeBuffer(pts: Int64(index)))
            #expect(buffer.byteCount == 4096)
            #expect(buffer.duration == 21_333_333)  // 1024 / 48 000 s
        }
        #expect(pool.statistics.allocations == 1)
        #expect(pool.statistics.reuses == 4)
    }
}
