#if canImport(COpus)
import COpus
import Encoders

/// An Opus encoder (libopus) for WebRTC: 48 kHz, 20 ms frames, in-band FEC, behind the same `AudioEncoder`
/// protocol as AAC.
///
/// RFC 7587 §4.1: the RTP clock is always 48 kHz and one RTP packet carries one Opus packet. Opus has no
/// AudioSpecificConfig (the SDP says everything), so ``audioSpecificConfig`` is empty. Single owner: use from one
/// actor or thread.
public final class OpusAudioEncoder: AudioEncoder {
    /// RFC 7587 §4.1: Opus in WebRTC runs at 48 kHz.
    public static let sampleRate = 48_000
    /// 20 ms at 48 kHz: the frame size WebRTC stacks use by default.
    public static let samplesPerFrame = 960
    /// RFC 6716 §3.4 R4: a packet is at most 1275 bytes per frame.
    static let maximumPacketSize = 1500

    public let configuration: AudioEncoderConfiguration
    public let audioSpecificConfig: [UInt8] = []
    public let frameSize = OpusAudioEncoder.samplesPerFrame
    public let primingSamples: Int

    private let encoder: OpaquePointer
    private var pending: [Float] = []
    private var nextPTS: Int64
    private var finished = false
    private var output = [UInt8](repeating: 0, count: OpusAudioEncoder.maximumPacketSize)

    /// Opens an encoder.
    /// - Parameter configuration: 48 000 Hz, mono or stereo, a bitrate (6...510 kbit/s).
    /// - Throws: `EncoderError` `.invalidConfiguration` for another rate, `.openFailed` if libopus refuses.
    public init(configuration: AudioEncoderConfiguration) throws {
        try configuration.validate()
        guard configuration.sampleRate == Self.sampleRate else {
            throw EncoderError(.invalidConfiguration, "cannot encode Opus at \(configuration.sampleRate) Hz: "
                + "WebRTC's Opus runs at 48000 Hz (RFC 7587); resample first")
        }
        guard (6...510).contains(configuration.bitrateKbps) else {
            throw EncoderError(.invalidConfiguration, "an Opus bitrate must be 6 to 510 kbps, not "
                + "\(configuration.bitrateKbps)")
        }
        var status: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(Self.sampleRate), Int32(configuration.channels),
                                                OPUS_APPLICATION_AUDIO, &status), status == OPUS_OK else {
            throw EncoderError(.openFailed, "libopus refused an encoder for \(configuration.summary): "
                + String(cString: opus_strerror(status)))
        }
        self.encoder = encoder
        self.configuration = configuration
        _ = stream_opus_set_bitrate(encoder, Int32(configuration.bitrateKbps * 1000))
        _ = stream_opus_set_inband_fec(encoder, 1)
        _ = stream_opus_set_packet_loss_perc(encoder, 5)
        var lookahead: Int32 = 0
        _ = stream_opus_get_lookahead(encoder, &lookahead)
        primingSamples = Int(lookahead)
        nextPTS = -Int64(lookahead)
    }

    deinit {
        opus_encoder_destroy(encoder)
    }

    public func encode(interleaved samples: UnsafeBufferPointer<Float>) throws -> [EncodedAudioPacket] {
        guard !finished else { throw EncoderError(.finished, "the Opus encoder was flushed; open a new one") }
        guard samples.count % configuration.channels == 0 else {
            throw EncoderError(.invalidInput, "\(samples.count) samples are not a whole number of "
                + "\(configuration.channels)-channel sample frames")
        }
        pending.append(contentsOf: samples)
        var packets: [EncodedAudioPacket] = []
        let frameLength = frameSize * configuration.channels
        var consumed = 0
        while pending.count - consumed >= frameLength {
            packets.append(try encodeFrame(pending[consumed..<(consumed + frameLength)]))
            consumed += frameLength
        }
        pending.removeFirst(consumed)
        return packets
    }

    public func flush() throws -> [EncodedAudioPacket] {
        guard !finished else { return [] }
        finished = true
        guard !pending.isEmpty else { return [] }
        let frameLength = frameSize * configuration.channels
        let padded = pending + [Float](repeating: 0, count: frameLength - pending.count)
        pending.removeAll()
        return [try encodeFrame(padded[...])]
    }

    private func encodeFrame(_ frame: ArraySlice<Float>) throws -> EncodedAudioPacket {
        let length = frame.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { buffer in
                opus_encode_float(encoder, input.baseAddress!, Int32(frameSize), buffer.baseAddress!,
                                  Int32(buffer.count))
            }
        }
        guard length > 0 else {
            throw EncoderError(.encodeFailed, "libopus could not encode a frame: "
                + String(cString: opus_strerror(length)))
        }
        let packet = EncodedAudioPacket(data: Array(output.prefix(Int(length))), pts: nextPTS,
                                        duration: Int64(frameSize), sampleRate: Self.sampleRate)
        nextPTS += Int64(frameSize)
        return packet
    }
}
#endif
