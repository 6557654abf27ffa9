#if canImport(CVOAACEnc)
import CVOAACEnc

/// AAC-LC through VisualOn's fixed-point encoder (libvo-aacenc).
///
/// Why not libavcodec: its AAC encoder is fine, but libavcodec links some seventy libraries (video codecs, librsvg,
/// glib …) that the dynamic loader maps and relocates: ~16 MB of a broadcaster's resident memory for an audio
/// encoder, against ~1 MB for this one. It is also about three times cheaper in CPU.
///
/// Takes interleaved Float32 PCM in chunks of any size, gathers it into frames (`AACFrameBuffer`), converts each to
/// the 16-bit interleaved frame the encoder wants, and encodes whenever 1024 samples per channel are collected: one
/// packet per frame, none held back. Timestamps count samples from the first input sample; the encoder's delay (1024
/// samples of MDCT overlap plus 576 of block-switching look-ahead) makes the first packet start at -1600. `flush()`
/// encodes the short last frame (zero-padded) and the silent frames that push the delayed samples out.
///
/// Owns its encoder handle; not `Sendable`: use it from one actor or thread.
public final class AACEncoder: AudioEncoder {
    /// The encoder's delay in samples: the first packet decodes to this many samples before the first input sample.
    private static let encoderDelay = 1600
    /// Bytes of output room per channel: an AAC frame carries at most 6144 bits per channel (ISO 14496-3 §4.5.3.2).
    private static let maximumFrameBytesPerChannel = 768
    /// `VO_ERR_NONE` and `VO_ERR_FAILED` as the API's return type.
    private static let success: VO_U32 = 0
    private static let failure: VO_U32 = 0x8000_0001

    /// The settings the encoder was opened with.
    public let configuration: AudioEncoderConfiguration
    /// The AudioSpecificConfig, e.g. `11 90` for 48 kHz stereo AAC-LC.
    public let audioSpecificConfig: [UInt8]
    /// Samples per channel in one AAC frame (1024).
    public let frameSize: Int = AACFrameBuffer.samplesPerFrame
    /// Samples the decoder output runs ahead of the input (1600 for this encoder): the first packet's pts is minus
    /// this value.
    public let primingSamples: Int = AACEncoder.encoderDelay

    private var api = VO_AUDIO_CODECAPI()
    private let handle: VO_HANDLE
    /// The frame being gathered, and the packets' timing.
    private var frames: AACFrameBuffer
    /// One frame of interleaved 16-bit input, converted from `frames` for each encode.
    private var input: [Int16]
    private var output: [UInt8]
    private var finished = false

    /// Opens an encoder.
    /// - Parameter configuration: sample rate, channel count and bitrate.
    /// - Throws: `EncoderError` `.invalidConfiguration` for unsupported settings, `.openFailed` when the encoder
    ///   refuses them.
    public init(configuration: AudioEncoderConfiguration) throws {
        try configuration.validate()
        let summary = configuration.summary
        var api = VO_AUDIO_CODECAPI()
        guard voGetAACEncAPI(&api) == Self.success, api.Init != nil, let setParameter = api.SetParam,
              api.SetInputData != nil, api.GetOutputData != nil, let uninitialize = api.Uninit else {
            throw EncoderError(.openFailed, "libvo-aacenc has no AAC encoder interface; reinstall libvo-aacenc0")
        }
        var handleOrNil: VO_HANDLE?
        guard stream_vo_aac_init(&api, &handleOrNil) == Self.success, let handle = handleOrNil else {
            throw EncoderError(.openFailed, "libvo-aacenc could not open an AAC encoder for \(summary)")
        }
        var parameters = AACENC_PARAM(sampleRate: Int32(configuration.sampleRate),
                                      bitRate: Int32(configuration.bitrateKbps * 1000),
                                      nChannels: Int16(configuration.channels), adtsUsed: 0)
        let status = setParameter(handle, stream_vo_aac_encparam(), &parameters)
        guard status == Self.success else {
            _ = uninitialize(handle)
            throw EncoderError(.openFailed, "libvo-aacenc refused \(summary) (error 0x\(String(status, radix: 16)))")
        }
        self.configuration = configuration
        self.api = api
        self.handle = handle
        audioSpecificConfig = Self.audioSpecificConfig(sampleRate: configuration.sampleRate,
                                                       channels: configuration.channels)
        frames = AACFrameBuffer(channels: configuration.channels, primingSamples: Self.encoderDelay)
        input = [Int16](repeating: 0, count: AACFrameBuffer.samplesPerFrame * configuration.channels)
        output = [UInt8](repeating: 0, count: Self.maximumFrameBytesPerChannel * configuration.channels)
    }

    deinit {
        _ = api.Uninit?(handle)
    }

    /// Buffers interleaved samples and encodes every completed 1024-sample frame.
    /// - Parameter samples: interleaved samples in -1...1 (clipped beyond), a multiple of the channel count long.
    /// - Returns: the packets that became ready, one per completed frame.
    /// - Throws: `EncoderError` `.invalidInput` for a partial sample frame, `.finished` after `flush()`,
    ///   `.encodeFailed` when the encoder fails.
    public func encode(interleaved samples: UnsafeBufferPointer<Float>) throws -> [EncodedAudioPacket] {
        guard !finished else { throw EncoderError(.finished, "the audio encoder was flushed; open a new one") }
        let channels = configuration.channels
        guard samples.count % channels == 0 else {
            throw EncoderError(.invalidInput, "\(samples.count) interleaved samples are not a whole number of "
                + "\(channels)-channel sample frames; pass complete sample frames")
        }
        var packets: [EncodedAudioPacket] = []
        var offset = 0
        while offset < samples.count {
            offset += frames.fill(from: samples, at: offset)
            if frames.isFull {
                packets.append(try encodeFrame())
            }
        }
        return packets
    }

    /// Encodes the buffered partial frame (zero-padded) and the frames that push the encoder's delayed samples out;
    /// afterwards `encode` throws `.finished`.
    /// - Returns: the remaining packets; the last one's duration ends at the last input sample.
    /// - Throws: `EncoderError` `.encodeFailed` when the encoder fails.
    public func flush() throws -> [EncodedAudioPacket] {
        guard !finished else { return [] }
        finished = true
        var packets: [EncodedAudioPacket] = []
        // Packet k decodes to samples [k * 1024 - 1600, k * 1024 - 576): send frames until the input is covered.
        while frames.padLastFrame(coveringPriming: true) {
            packets.append(try encodeFrame())
        }
        return packets
    }

    // MARK: - Private

    /// AudioSpecificConfig (ISO 14496-3 §1.6.2.1): object type 2 (AAC-LC), sampling frequency index, channel
    /// configuration, then frameLengthFlag, dependsOnCoreCoder and extensionFlag all 0.
    private static func audioSpecificConfig(sampleRate: Int, channels: Int) -> [UInt8] {
        let index = AudioEncoderConfiguration.supportedSampleRates.firstIndex(of: sampleRate) ?? 0
        let bits = UInt16(2) << 11 | UInt16(index) << 7 | UInt16(channels) << 3
        return [UInt8(bits >> 8), UInt8(bits & 0xFF)]
    }

    /// Encodes the full frame of `frames` into one packet.
    private func encodeFrame() throws -> EncodedAudioPacket {
        let (pts, duration) = frames.timePacket()
        let summary = configuration.summary
        frames.withFrame { samples in
            input.withUnsafeMutableBufferPointer { destination in
                for index in 0..<samples.count {
                    let scaled = (samples[index] * 32767).rounded()
                    destination[index] = Int16(max(-32768, min(32767, scaled)))
                }
            }
        }
        frames.startNextFrame()
        let length = try input.withUnsafeMutableBytes { pcm in
            var buffer = VO_CODECBUFFER(Buffer: pcm.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                        Length: UInt(pcm.count), Time: 0)
            guard api.SetInputData?(handle, &buffer) == Self.success else {
                throw EncoderError(.encodeFailed, "libvo-aacenc refused the AAC frame at sample \(pts) of \(summary)")
            }
            return try output.withUnsafeMutableBufferPointer { bytes in
                var packet = VO_CODECBUFFER(Buffer: bytes.baseAddress, Length: UInt(bytes.count), Time: 0)
                var information = VO_AUDIO_OUTPUTINFO()
                let status = api.GetOutputData?(handle, &packet, &information) ?? Self.failure
                guard status == Self.success, packet.Length > 0, packet.Length <= UInt(bytes.count) else {
                    throw EncoderError(.encodeFailed, "libvo-aacenc could not encode the AAC frame at sample \(pts) "
                        + "of \(summary) (error 0x\(String(status, radix: 16)))")
                }
                return Int(packet.Length)
            }
        }
        return EncodedAudioPacket(data: Array(output.prefix(length)), pts: pts, duration: duration,
                                  sampleRate: configuration.sampleRate)
    }
}
#endif
