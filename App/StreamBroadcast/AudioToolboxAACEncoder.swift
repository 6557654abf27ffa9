import AVFAudio
import Encoders
import FLV

/// AAC-LC through AudioToolbox's `AudioConverter` (driven via `AVAudioConverter`), behind the Encoders module's
/// `AudioEncoder` protocol: interleaved Float32 in, one raw AAC frame per 1024 samples out.
final class AudioToolboxAACEncoder: AudioEncoder {
    let configuration: AudioEncoderConfiguration
    let audioSpecificConfig: [UInt8]
    let frameSize = 1024
    let primingSamples: Int
    private let pcmFormat: AVAudioFormat
    private let aacFormat: AVAudioFormat
    private let converter: AVAudioConverter
    private let input: AVAudioPCMBuffer
    private let output: AVAudioCompressedBuffer
    private var pending: [Float] = []
    private var packetsOut: Int64 = 0
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
        primingSamples = Int(converter.primeInfo.leadingFrames)
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
        pending.append(contentsOf: samples)
        var packets: [EncodedAudioPacket] = []
        let chunk = frameSize * configuration.channels
        while pending.count >= chunk {
            packets += try convert(Array(pending[..<chunk]), endOfStream: false)
            pending.removeFirst(chunk)
        }
        return packets
    }

    func flush() throws -> [EncodedAudioPacket] {
        guard !finished else { return [] }
        finished = true
        var packets: [EncodedAudioPacket] = []
        if !pending.isEmpty {
            let padded = pending + [Float](repeating: 0, count: frameSize * configuration.channels - pending.count)
            packets += try convert(padded, endOfStream: false)
            pending = []
        }
        return packets + (try convert([], endOfStream: true))
    }

    /// Feeds one 1024-frame chunk (or the end of stream) and collects every packet the converter returns.
    private func convert(_ chunk: [Float], endOfStream: Bool) throws -> [EncodedAudioPacket] {
        if !chunk.isEmpty, let destination = input.floatChannelData?[0] {
            chunk.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: chunk.count) }
            input.frameLength = AVAudioFrameCount(chunk.count / configuration.channels)
        }
        var provided = chunk.isEmpty
        var packets: [EncodedAudioPacket] = []
        while true {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { [input] _, inputStatus in
                if provided {
                    inputStatus.pointee = endOfStream ? .endOfStream : .noDataNow
                    return nil
                }
                provided = true
                inputStatus.pointee = .haveData
                return input
            }
            if status == .error {
                throw EncoderError(.encodeFailed, "AudioToolbox AAC encoding failed: "
                                       + (error?.localizedDescription ?? "unknown error"))
            }
            guard output.packetCount > 0, output.byteLength > 0 else { break }
            let bytes = Array(UnsafeRawBufferPointer(start: output.data, count: Int(output.byteLength)))
            packets.append(EncodedAudioPacket(data: bytes, pts: packetsOut * Int64(frameSize) - Int64(primingSamples),
                                              duration: Int64(frameSize), sampleRate: configuration.sampleRate))
            packetsOut += 1
            if status != .haveData { break }
        }
        return packets
    }
}
