import Testing
import Media

@Suite struct VideoFrameTests {
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
}
