import Foundation
import Media
import Testing

@Suite struct LinearResamplerTests {
    static func sine(frequency: Double, seconds: Double, sampleRate: Int, channels: Int) -> [Float] {
        var samples: [Float] = []
        for index in 0..<Int(seconds * Double(sampleRate)) {
            let phase = 2 * Double.pi * frequency * Double(index) / Double(sampleRate)
            samples.append(contentsOf: repeatElement(Float(0.5 * sin(phase)), count: channels))
        }
        return samples
    }

    static func frequency(_ samples: [Float], channels: Int, sampleRate: Int) -> Double {
        let left = stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
        var crossings = 0
        for index in 1..<left.count where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(left.count) / Double(sampleRate))
    }

    /// 44.1 kHz to 48 kHz in chunks of any size: the same output as whole, 48000 frames a second, the tone kept.
    @Test(arguments: [[441], [1024, 7], [1], [44100]])
    func resamplesInChunksAsWhole(chunks: [Int]) {
        let input = Self.sine(frequency: 1000, seconds: 1, sampleRate: 44100, channels: 2)
        var whole = LinearResampler(inputRate: 44100, outputRate: 48000, channels: 2)
        let expected = whole.process(input)
        var chunked = LinearResampler(inputRate: 44100, outputRate: 48000, channels: 2)
        var output: [Float] = []
        var offset = 0
        var index = 0
        while offset < input.count {
            let end = min(input.count, offset + chunks[index % chunks.count] * 2)
            output += chunked.process(Array(input[offset..<end]))
            offset = end
            index += 1
        }
        #expect(output.count == expected.count)
        #expect(zip(output, expected).allSatisfy { abs($0 - $1) < 1e-5 }, "chunks change nothing")
        // 44100 input frames span 44099 intervals: 47999 output intervals, so 47999 or 48000 frames.
        #expect((47999...48000).contains(output.count / 2), "\(output.count / 2) frames")
        let heard = Self.frequency(output, channels: 2, sampleRate: 48000)
        #expect(abs(heard - 1000) < 5, "the tone is still 1 kHz at 48 kHz: \(heard)")
    }

    @Test func theSameRateIsTheSameSamples() {
        var resampler = LinearResampler(inputRate: 48000, outputRate: 48000, channels: 1)
        #expect(resampler.process([0.25, -0.5, 1]) == [0.25, -0.5, 1])
    }

    @Test func interpolatesBetweenNeighbours() {
        // Doubling the rate puts a point halfway between each input pair, the last held for the next chunk.
        var resampler = LinearResampler(inputRate: 1, outputRate: 2, channels: 1)
        #expect(resampler.process([0, 1, 0]) == [0, 0.5, 1, 0.5, 0])
        #expect(resampler.process([-1]) == [-0.5, -1])
    }
}
