import AVFAudio
import Encoders
import FLV

/// AAC-LC through AudioToolbox's `AudioConverter` (driven via `AVAudioConverter`), behind the Encoders module's
/// `AudioEncoder` protocol: interleaved Float32 in, one raw AAC frame per 1024 samples out. The framing and the
/// timestamps are the Encoders module's `AACFrameBuffer`, tested on Linux with libvo-aacenc.
final class AudioToolboxAACEncoder: AudioEncoder {
    let configuration: AudioEncoderConfiguration
    let audioSpecificConfig: [UInt8]
    let frameSize = AACFrameBuffer.samplesPerFrame
    let primingSamples: Int
    private let pcmFormat: AVAudioFormat
    private let aacFormat: AVAudioFormat
    private let converter: AVAudioConverter
    private let input: AVAudioPCMBuffer
    private let output: AVAudioCompressedBuffer
    private var frames: AACFrameBuffer
    private var finished = false

    init(configuration: AudioEncoderConfiguration) throws {
        try configuration.validate()
        let channels = AVAudioChannelCount(configuration.channels)
        let rate = Double(configuration.sampleRate)
        var description = AudioStreamBasicDescription(
            mSampleRate: rate, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
            mFramesPerPacket: 1024, mBytesPerFrame: 0, mChannelsPerFrame: channels, mBitsPerChannel: 0, mReserved: 0)
        guard let pcm = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: rate, channels: channels,
                                      interleaved: true),
              let aac = AVAudioFormat(streamDescription: &description),
              let converter = AVAudioConverter(from: pcm, to: aac),
              let input = AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 1024)
        else {
            throw EncoderError(.openFailed, "AudioToolbox cannot open an AAC encoder for \(configuration.summary)")
        }
        converter.bitRate = configuration.bitrateKbps * 1000
        pcmFormat = pcm
        aacFormat = aac
        self.converter = converter
        self.input = input
        output = AVAudioCompressedBuffer(format: aac, packetCapacity: 1,
                                         maximumPacketSize: max(converter.maximumOutputPacketSize, 1536))
        let priming = Int(converter.primeInfo.leadingFrames)
        primingSamples = priming
        frames = AACFrameBuffer(channels: configuration.channels, primingSamples: priming)
        self.configuration = configuration
        audioSpecificConfig = AudioSpecificConfig(sampleRate: configuration.sampleRate,
                                                  channelConfiguration: UInt8(configuration.channels)).encode()
    }

    func encode(interleaved samples: UnsafeBufferPointer<Float>) throws -> [EncodedAudioPacket] {
        guard !finished else { throw EncoderError(.finished, "the audio encoder was flushed; start a new one") }
        guard samples.count % configuration.channels == 0 else {
            throw EncoderError(.invalidInput, "\(samples.count) samples is not a whole number of "
                                   + "\(configuration.channels)-channel frames")
        }
        var packets: [EncodedAudioPacket] = []
        var offset = 0
        while offset < samples.count {
            offset += frames.fill(from: samples, at: offset)
            if frames.isFull {
                packets += try convert(endOfStream: false)
            }
        }
        return packets
    }

    func flush() throws -> [EncodedAudioPacket] {
        guard !finished else { return [] }
        finished = true
        var packets: [EncodedAudioPacket] = []
        // Only the short last frame is padded: AudioToolbox pushes its delayed samples out itself at the end of stream.
        while frames.padLastFrame(coveringPriming: false) {
            packets += try convert(endOfStream: false)
        }
        return packets + (try convert(endOfStream: true))
    }

    /// Feeds the full frame, if there is one (else the end of stream when `endOfStream`), and collects every packet
    /// the converter returns.
    private func convert(endOfStream: Bool) throws -> [EncodedAudioPacket] {
        let hasFrame = frames.isFull
        if hasFrame {
            if let destination = input.floatChannelData?[0] {
                frames.withFrame { frame in destination.update(from: frame.baseAddress!, count: frame.count) }
            }
            input.frameLength = AVAudioFrameCount(frameSize)
            frames.startNextFrame()
        }
        // `AVAudioConverterInputBlock` is `@Sendable` (issue 35 defect 2), yet the converter pulls from it only inside
        // `convert(to:error:withInputFrom:)`, on this thread, before that returns (AudioConverterFillComplexBuffer's
        // model): no other thread ever sees the flag or the buffer, so they are opted out of the check.
        nonisolated(unsafe) var provided = !hasFrame
        nonisolated(unsafe) let buffer = input
        var packets: [EncodedAudioPacket] = []
        while true {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, inputStatus in
                if provided {
                    inputStatus.pointee = endOfStream ? .endOfStream : .noDataNow
                    return nil
                }
                provided = true
                inputStatus.pointee = .haveData
                return buffer
            }
            if status == .error {
                throw EncoderError(.encodeFailed, "AudioToolbox AAC encoding failed: "
                                       + (error?.localizedDescription ?? "unknown error"))
            }
            guard output.packetCount > 0, output.byteLength > 0 else { break }
            let bytes = Array(UnsafeRawBufferPointer(start: output.data, count: Int(output.byteLength)))
            let (pts, duration) = frames.timePacket()
            packets.append(EncodedAudioPacket(data: bytes, pts: pts, duration: duration,
                                              sampleRate: configuration.sampleRate))
            if status != .haveData { break }
        }
        return packets
    }
}
