#if canImport(COpus)
import COpus
import Encoders

/// An Opus decoder (libopus) for what WebRTC peers send: 48 kHz interleaved Float32 PCM out, with packet loss
/// concealment for the packets that never came.
///
/// RFC 7587 §4.1: the RTP clock is 48 kHz whatever the encoder's internal rate, and a decoder may output stereo
/// whatever the sender encoded (a mono packet decodes to two equal channels). Single owner: use from one actor or
/// thread.
public final class OpusAudioDecoder {
    /// RFC 7587 §4.1: Opus in WebRTC runs at 48 kHz.
    public static let sampleRate = 48_000
    /// RFC 6716 §3.2.5: a packet holds at most 120 ms of audio, 5760 samples per channel at 48 kHz.
    public static let maximumSamplesPerPacket = 5760

    /// Interleaved channels in the output, 1 or 2.
    public let channels: Int

    private let decoder: OpaquePointer
    /// One packet's worth of output at most: the only buffer, made once.
    private var output: [Float]

    /// Opens a decoder.
    /// - Parameter channels: output channels, 1 or 2.
    /// - Throws: `EncoderError` `.invalidConfiguration` for another channel count, `.openFailed` if libopus refuses.
    public init(channels: Int = 2) throws {
        guard channels == 1 || channels == 2 else {
            throw EncoderError(.invalidConfiguration, "an Opus decoder outputs 1 or 2 channels, not \(channels)")
        }
        var status: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(Self.sampleRate), Int32(channels), &status),
              status == OPUS_OK else {
            throw EncoderError(.openFailed, "libopus refused a \(channels)-channel decoder: "
                + String(cString: opus_strerror(status)))
        }
        self.decoder = decoder
        self.channels = channels
        output = [Float](repeating: 0, count: Self.maximumSamplesPerPacket * channels)
    }

    deinit {
        opus_decoder_destroy(decoder)
    }

    /// Decodes one Opus packet (one RTP payload, RFC 7587 §4.2).
    /// - Parameter packet: the packet's bytes.
    /// - Returns: interleaved samples in -1...1, `channels` per sample frame (960 frames for a 20 ms packet).
    /// - Throws: `EncoderError` `.invalidInput` when libopus cannot decode the bytes (a peer's corrupt packet).
    public func decode(_ packet: [UInt8]) throws -> [Float] {
        guard !packet.isEmpty else {
            throw EncoderError(.invalidInput, "an empty Opus packet; RFC 7587 sends at least its TOC byte")
        }
        let frames = packet.withUnsafeBufferPointer { data in
            output.withUnsafeMutableBufferPointer { buffer in
                opus_decode_float(decoder, data.baseAddress, Int32(data.count), buffer.baseAddress!,
                                  Int32(Self.maximumSamplesPerPacket), 0)
            }
        }
        guard frames >= 0 else {
            throw EncoderError(.invalidInput, "libopus could not decode a \(packet.count)-byte Opus packet: "
                + String(cString: opus_strerror(frames)))
        }
        return Array(output.prefix(Int(frames) * channels))
    }

    /// Conceals lost audio (libopus' PLC: a NULL packet), continuing what came before it.
    /// - Parameter samples: sample frames to make, a multiple of 2.5 ms (120 at 48 kHz), at most 5760 per call.
    /// - Returns: interleaved samples, `samples × channels` of them (silence if libopus refuses).
    public func conceal(samples: Int) -> [Float] {
        let count = max(0, min(samples, Self.maximumSamplesPerPacket))
        let frames = output.withUnsafeMutableBufferPointer { buffer in
            opus_decode_float(decoder, nil, 0, buffer.baseAddress!, Int32(count), 0)
        }
        guard frames == Int32(count) else { return [Float](repeating: 0, count: count * channels) }
        return Array(output.prefix(count * channels))
    }
}
#endif
