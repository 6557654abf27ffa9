/// An AAC encoder for live streaming: interleaved PCM in any chunk size, raw AAC frames out.
///
/// Backends: `AACEncoder` (libvo-aacenc, Linux) and, on Apple platforms, AudioToolbox. An encoder is a single-owner
/// object: use it from one actor or thread.
public protocol AudioEncoder: AnyObject {
    /// The settings the encoder was opened with.
    var configuration: AudioEncoderConfiguration { get }

    /// The AudioSpecificConfig (ISO 14496-3 §1.6.2.1) for the AAC sequence header, e.g. `11 90` for 48 kHz stereo.
    var audioSpecificConfig: [UInt8] { get }

    /// Samples per channel in one AAC frame (1024 for AAC-LC).
    var frameSize: Int { get }

    /// Samples the decoder drops at the start; the first packet's pts is minus this value.
    var primingSamples: Int { get }

    /// Encodes interleaved samples (L R L R ... for stereo) in the range -1...1, in chunks of any size.
    /// - Parameter samples: a whole number of sample frames (a multiple of the channel count).
    /// - Returns: a packet for each complete frame the input completed (possibly none).
    /// - Throws: `EncoderError` for a partial sample frame, after `flush()`, or on a codec failure.
    func encode(interleaved samples: UnsafeBufferPointer<Float>) throws -> [EncodedAudioPacket]

    /// Encodes the buffered partial frame and drains the encoder; afterwards it takes no more input.
    /// - Returns: the remaining packets.
    /// - Throws: `EncoderError` on a codec failure.
    func flush() throws -> [EncodedAudioPacket]
}

extension AudioEncoder {
    /// Encodes interleaved Float32 samples in the range -1...1.
    /// - Parameter samples: a whole number of sample frames (a multiple of the channel count).
    /// - Returns: a packet for each complete frame the input completed.
    /// - Throws: `EncoderError` as `encode(interleaved:)` with a buffer pointer.
    public func encode(interleaved samples: [Float]) throws -> [EncodedAudioPacket] {
        try samples.withUnsafeBufferPointer { try encode(interleaved: $0) }
    }

    /// Encodes interleaved signed 16-bit samples (full scale ±32768).
    /// - Parameter samples: a whole number of sample frames (a multiple of the channel count).
    /// - Returns: a packet for each complete frame the input completed.
    /// - Throws: `EncoderError` as `encode(interleaved:)` with a buffer pointer.
    public func encode(interleaved samples: [Int16]) throws -> [EncodedAudioPacket] {
        let scale: Float = 1.0 / 32768.0
        return try encode(interleaved: samples.map { Float($0) * scale })
    }
}
