import Testing
import Media

@Suite struct ToneGeneratorTests {
    static let stereoFloat = PCMFormat(sampleFormat: .float32, sampleRate: 48_000, channels: 2)

    @Test(arguments: [440.0, 1000.0, 997.0])
    func frequencyMatchesZeroCrossings(frequency: Double) {
        let generator = ToneGenerator(frequency: frequency, amplitude: 0.5, format: Self.stereoFloat)
        var buffer = PCMBuffer(format: Self.stereoFloat, frameCount: 48_000)  // one second
        generator.render(startingAt: 0, into: &buffer)
        let samples = buffer.floatSamples()
        var crossings = 0
        for frame in 1..<48_000 where (samples[(frame - 1) * 2] < 0) != (samples[frame * 2] < 0) {
            crossings += 1
        }
        #expect(abs(Double(crossings) - 2 * frequency) <= 2)  // two zero crossings per cycle
        #expect(samples.allSatisfy { abs($0) <= 0.5 + 1e-6 })
        #expect(samples[2 * 100] == samples[2 * 100 + 1])  // both channels carry the tone
    }

    @Test func consecutiveBuffersJoinWithoutAJump() throws {
        let generator = ToneGenerator(frequency: 440, amplitude: 0.8, format: Self.stereoFloat)
        let pool = PCMBufferPool(format: Self.stereoFloat, frameCount: 1024, maxCount: 2)
        var whole = PCMBuffer(format: Self.stereoFloat, frameCount: 4096)
        generator.render(startingAt: 0, into: &whole)
        let expected = whole.floatSamples()
        var joined: [Float] = []
        for index in 0..<4 {
            var buffer = try #require(pool.makeBuffer(pts: 0))
            generator.render(bufferIndex: index, startPTS: 1_000, into: &buffer)
            #expect(buffer.pts == 1_000 + Int64(index) * 1024 * 1_000_000_000 / 48_000)
            joined += buffer.floatSamples()
        }
        #expect(joined == expected)
        // The largest step between neighbours is what a 440 Hz sine allows: 2π·440/48000·0.8 ≈ 0.046.
        var largestStep: Float = 0
        for frame in 1..<4096 {
            largestStep = max(largestStep, abs(joined[frame * 2] - joined[(frame - 1) * 2]))
        }
        #expect(largestStep < 0.05)
        #expect(pool.statistics.allocations == 1)
    }

    @Test func int16UsesFullScale() {
        let format = PCMFormat(sampleFormat: .int16, sampleRate: 48_000, channels: 2)
        let generator = ToneGenerator(frequency: 1000, amplitude: 1, format: format)
        var buffer = PCMBuffer(format: format, frameCount: 48)  // one 1 kHz cycle
        generator.render(startingAt: 0, into: &buffer)
        let peak = buffer.withUnsafeBytes { bytes in bytes.bindMemory(to: Int16.self).map { abs(Int($0)) }.max() }
        #expect(peak == 32_767)
        #expect(buffer.withUnsafeBytes { $0.bindMemory(to: Int16.self)[0] } == 0)
    }
}
