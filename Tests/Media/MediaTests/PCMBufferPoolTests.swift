import Testing
import Media

@Suite struct PCMBufferPoolTests {
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

    @Test func exhaustedPoolReturnsNil() throws {
        let format = PCMFormat(sampleFormat: .float32, sampleRate: 48_000, channels: 1)
        let pool = PCMBufferPool(format: format, frameCount: 480, maxCount: 1)
        var held = try #require(pool.makeBuffer(pts: 0))
        #expect(pool.makeBuffer(pts: 1) == nil)
        #expect(pool.statistics.exhaustions == 1)
        held.withUnsafeMutableBytes { bytes in bytes.storeBytes(of: Float(0.25), toByteOffset: 0, as: Float.self) }
        #expect(held.floatSamples().first == 0.25)
    }
}
