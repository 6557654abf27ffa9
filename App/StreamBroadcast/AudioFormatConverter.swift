import AVFAudio
import AppLogic
import CoreMedia

/// Converts ReplayKit's audio buffers (app audio is often 16-bit big-endian, the mic 16-bit mono, at 44.1 or 48 kHz)
/// to the mix format: `MemoryBudget.audioSampleRate` interleaved stereo Float32. One converter and one pair of PCM
/// buffers per source, made again only when the source's format changes or a buffer is longer than any before.
final class AudioFormatConverter {
    private let target: AVAudioFormat
    private var source: AVAudioFormat?
    private var converter: AVAudioConverter?
    private var input: AVAudioPCMBuffer?
    private var output: AVAudioPCMBuffer?

    init?() {
        guard let target = AVAudioFormat(commonFormat: .pcmFormatFloat32,
                                         sampleRate: Double(MemoryBudget.audioSampleRate),
                                         channels: AVAudioChannelCount(MemoryBudget.audioChannels), interleaved: true)
        else { return nil }
        self.target = target
    }

    /// Converts the buffer's samples to the mix format and hands them to `deliver`, straight from the reused output
    /// buffer (valid only during the call); nothing is delivered when the buffer cannot be read.
    func convert(_ sample: CMSampleBuffer, into deliver: (UnsafeBufferPointer<Float>) -> Void) {
        guard let description = CMSampleBufferGetFormatDescription(sample) else { return }
        let format = AVAudioFormat(cmAudioFormatDescription: description)
        if source != format {
            source = format
            converter = AVAudioConverter(from: format, to: target)
            self.input = nil
            self.output = nil
        }
        let frames = CMSampleBufferGetNumSamples(sample)
        guard let converter, frames > 0,
              let input = Self.reuse(&self.input, format: format, capacity: AVAudioFrameCount(frames))
        else { return }
        // Also sets each AudioBuffer's mDataByteSize to this many frames, which is what the copy below fills.
        input.frameLength = AVAudioFrameCount(frames)
        guard CMSampleBufferCopyPCMDataIntoAudioBufferList(sample, at: 0, frameCount: Int32(frames),
                                                          into: input.mutableAudioBufferList) == noErr
        else { return }
        let capacity = AVAudioFrameCount(Double(frames) * target.sampleRate / format.sampleRate) + 32
        guard let output = Self.reuse(&self.output, format: target, capacity: capacity) else { return }
        // `AVAudioConverterInputBlock` is `@Sendable` (issue 35 defect 2), yet the converter pulls from it only inside
        // `convert(to:error:withInputFrom:)`, on this thread, before that returns (AudioConverterFillComplexBuffer's
        // model): no other thread ever sees the flag or the buffer, so they are opted out of the check.
        nonisolated(unsafe) var provided = false
        nonisolated(unsafe) let buffer = input
        var error: NSError?
        _ = converter.convert(to: output, error: &error) { _, status in
            if provided {
                status.pointee = .noDataNow
                return nil
            }
            provided = true
            status.pointee = .haveData
            return buffer
        }
        guard error == nil, let samples = output.floatChannelData?[0] else { return }
        deliver(UnsafeBufferPointer(start: samples, count: Int(output.frameLength) * MemoryBudget.audioChannels))
    }

    /// The reused buffer when it holds `capacity` frames, else a new one kept for the next call.
    private static func reuse(_ buffer: inout AVAudioPCMBuffer?, format: AVAudioFormat,
                              capacity: AVAudioFrameCount) -> AVAudioPCMBuffer? {
        if let buffer, buffer.frameCapacity >= capacity { return buffer }
        buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity)
        return buffer
    }
}
