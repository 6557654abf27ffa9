import Capture
import Media
import Testing
import TestSupport

/// The mixer fed and drained with PulseAudio's pooled buffers.
@Suite(.startsPeers) struct AudioMixerPCMBufferTests {
    @Test func acceptsPCMBuffersOfBothSampleFormats() throws {
        var mixer = AudioMixer(inputCount: 2)
        var floats = PCMBuffer(format: PCMFormat(sampleFormat: .float32, sampleRate: 48_000, channels: 2),
                               frameCount: 4)
        floats.withUnsafeMutableBytes { $0.bindMemory(to: Float.self).update(repeating: 0.25) }
        var integers = PCMBuffer(format: PCMFormat(sampleFormat: .int16, sampleRate: 48_000, channels: 2),
                                 frameCount: 4)
        integers.withUnsafeMutableBytes { $0.bindMemory(to: Int16.self).update(repeating: 8_192) }
        mixer.append(floats, toInput: 0)
        mixer.append(integers, toInput: 1)
        var output = PCMBuffer(format: PulseAudioSource.format, frameCount: 4)
        let mixed = mixer.mix(into: &output)
        #expect(mixed)
        #expect(output.floatSamples() == [Float](repeating: 0.5, count: 8))
    }
}
