import Encoders
import Testing

@Suite struct AACFrameBufferTests {
    /// Feeds `samples` in chunks cycling through `chunkFrames` sample frames, then pads to the end the way an encoder
    /// does: every frame handed over, in order.
    static func frames(_ samples: [Float], channels: Int, chunkFrames: [Int], coveringPriming: Bool,
                       primingSamples: Int = 1600) -> (buffer: AACFrameBuffer, frames: [[Float]], beforeEnd: Int) {
        var buffer = AACFrameBuffer(channels: channels, primingSamples: primingSamples)
        var frames: [[Float]] = []
        var start = 0
        var chunk = 0
        while start < samples.count {
            let end = min(samples.count, start + chunkFrames[chunk % chunkFrames.count] * channels)
            Array(samples[start..<end]).withUnsafeBufferPointer { piece in
                var offset = 0
                while offset < piece.count {
                    offset += buffer.fill(from: piece, at: offset)
                    if buffer.isFull {
                        frames.append(buffer.withFrame(Array.init))
                        buffer.startNextFrame()
                    }
                }
            }
            start = end
            chunk += 1
        }
        let beforeEnd = frames.count
        while buffer.padLastFrame(coveringPriming: coveringPriming) {
            frames.append(buffer.withFrame(Array.init))
            buffer.startNextFrame()
        }
        return (buffer, frames, beforeEnd)
    }

    @Test(arguments: [[1], [441, 1000, 2048], [1024], [4096], [1023, 1]])
    func chunksOfAnySizeMakeTheSameFrames(chunkFrames: [Int]) {
        // 2.5 frames of stereo, each sample numbered so that order and interleaving show.
        let samples = (0..<(2560 * 2)).map(Float.init)
        let (buffer, frames, beforeEnd) = Self.frames(samples, channels: 2, chunkFrames: chunkFrames,
                                                      coveringPriming: false)
        #expect(beforeEnd == 2)
        #expect(frames.count == 3)
        #expect(frames.allSatisfy { $0.count == 2048 })
        #expect(frames[0] == Array(samples[0..<2048]))
        #expect(frames[1] == Array(samples[2048..<4096]))
        #expect(frames[2] == Array(samples[4096...]) + [Float](repeating: 0, count: 1024))  // the short last frame
        #expect(buffer.samplesIn == 2560)
        #expect(buffer.framesOut == 3)
    }

    @Test(arguments: [
        // (samples per channel in, frames out without and with the 1600-sample delay covered)
        (0, 0, 2),            // nothing in: no last frame, but the delay alone is two frames of silence
        (1, 1, 2),            // 1 + 1600 samples need 2 frames out
        (1024, 1, 3),         // a whole frame, then 1600 more: 2624 samples, 3 frames
        (2048, 2, 4),         // AACEncoderTests' case: 2048 + 1600 = 3648, 4 frames
        (96_000, 94, 96),     // two seconds at 48 kHz: 93 frames and 768, then 1600 more
    ])
    func theEndPadsWhatIsLeft(samplesIn: Int, framesWithout: Int, framesWith: Int) {
        let samples = [Float](repeating: 0.5, count: samplesIn)
        #expect(Self.frames(samples, channels: 1, chunkFrames: [1000], coveringPriming: false).frames.count
                    == framesWithout)
        let covered = Self.frames(samples, channels: 1, chunkFrames: [1000], coveringPriming: true).frames
        #expect(covered.count == framesWith)
        #expect(covered.dropFirst(max(framesWithout, 1)).allSatisfy { $0.allSatisfy { $0 == 0 } })  // silence after
    }

    @Test func packetsAreTimedFromTheFirstInputSample() {
        // 2048 samples in with a 1600-sample delay: packet k covers [k × 1024 − 1600, k × 1024 − 576).
        var buffer = Self.frames([Float](repeating: 0, count: 2048), channels: 1, chunkFrames: [2048],
                                 coveringPriming: true).buffer
        let timings = (0..<5).map { _ in buffer.timePacket() }
        #expect(timings.map(\.pts) == [-1600, -576, 448, 1472, 2496])
        #expect(timings.map(\.duration) == [1024, 1024, 1024, 576, 0])  // the fourth ends at sample 2048
        #expect(buffer.packetsOut == 5)
    }

    @Test func aFullFrameTakesNoMoreSamples() {
        var buffer = AACFrameBuffer(channels: 1, primingSamples: 0)
        let samples = [Float](repeating: 1, count: 1500)
        samples.withUnsafeBufferPointer { pointer in
            #expect(buffer.fill(from: pointer, at: 0) == 1024)
            #expect(buffer.isFull)
            #expect(buffer.fill(from: pointer, at: 1024) == 0)  // encode it first
            buffer.startNextFrame()
            #expect(buffer.fill(from: pointer, at: 1024) == 476)
        }
        #expect(!buffer.isFull)
        #expect(buffer.samplesIn == 1500)
    }
}
