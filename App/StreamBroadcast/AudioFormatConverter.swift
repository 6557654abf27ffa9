import AVFAudio
import AppLogic
import CoreMedia

/// Converts ReplayKit's audio buffers (app audio is often 16-bit big-endian, the mic 16-bit mono, at 44.1 or 48 kHz)
/// to the mix format: `MemoryBudget.audioSampleRate` interleaved stereo Float32. One converter per source, rebuilt only
/// when the source's format changes.
final class AudioFormatConverter {
    private let target: AVAudioFormat
    private var source: AVAudioFormat?
    private var converter: AVAudioConverter?

    init?() {
        guard let target = AVAudioFormat(commonFormat: .pcmFormatFloat32,
                                         sampleRate: Double(MemoryBudget.audioSampleRate),
                                         channels: AVAudioChannelCount(MemoryBudget.audioChannels), interleaved: true)
        else { return nil }
        self.target = target
    }

    /// The buffer's samples in the mix format, or nothing when it cannot be read.
    func convert(_ sample: CMSampleBuffer) -> [Float] {
        guard let description = CMSampleBufferGetFormatDescription(sample) else { return [] }
        let format = AVAudioFormat(cmAudioFormatDescription: description)
        if source != format {
            source = format
            converter = AVAudioConverter(from: format, to: target)
        }
        let frames = CMSampleBufferGetNumSamples(sample)
        guard let converter, frames > 0,
              let input = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))
        else { return [] }
        input.frameLength = AVAudioFrameCount(frames)
        guard CMSampleBufferCopyPCMDataIntoAudioBufferList(sample, at: 0, frameCount: Int32(frames),
                                                          into: input.mutableAudioBufferList) == noErr
        else { return [] }
        let capacity = AVAudioFrameCount(Double(frames) * target.sampleRate / format.sampleRate) + 32
        guard let output = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: capacity) else { return [] }
        var provided = false
        var error: NSError?
        _ = converter.convert(to: output, error: &error) { _, status in
            if provided {
                status.pointee = .noDataNow
                return nil
            }
            provided = true
            status.pointee = .haveData
            return input
        }
        guard error == nil, let samples = output.floatChannelData?[0] else { return [] }
        return Array(UnsafeBufferPointer(start: samples, count: Int(output.frameLength) * MemoryBudget.audioChannels))
    }
}
