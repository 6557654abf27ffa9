#if canImport(CFAAD)
import CFAAD

/// An AAC decoder (FAAD2) for what RTMP publishers send: raw AAC frames, as FLV carries them after an
/// AudioSpecificConfig, into interleaved Float32 PCM.
///
/// Why FAAD2: the server needs an AAC decoder for one thing, giving an RTMP publish's sound to WebRTC players (as
/// Opus). FAAD2 is one ~200 KB library with a decoder alone; libavcodec's AAC decoder would bring the ~70 libraries
/// libavcodec links (see ``AACEncoder``). The library is loaded with dlopen at the first decoder (CFAAD), so a
/// broadcast never maps it. HE-AAC's SBR doubles the output rate (``sampleRate`` says which).
///
/// Owns its decoder handle; not `Sendable`: use it from one actor or thread.
public final class AACAudioDecoder {
    /// The output's sample rate, from the AudioSpecificConfig (twice its core rate for HE-AAC).
    public let sampleRate: Int
    /// Interleaved channels in the output, 1 or 2, as FAAD2 reports them: a mono stream usually comes out as two
    /// equal channels (FAAD2 makes room for parametric stereo), more than two are mixed down to 2.
    public let channels: Int

    private let decoder: NeAACDecHandle

    /// Opens a decoder for the stream `audioSpecificConfig` describes (the AAC sequence header's payload).
    /// - Throws: `EncoderError` `.openFailed` when libfaad2 is missing or refuses the config.
    public init(audioSpecificConfig: [UInt8]) throws {
        guard let decoder = NeAACDecOpen() else {
            let reason = stream_faad_load_error().map { String(cString: $0) } ?? "NeAACDecOpen failed"
            throw EncoderError(.openFailed, "cannot open an AAC decoder (libfaad2): \(reason)")
        }
        if let configuration = NeAACDecGetCurrentConfiguration(decoder) {
            configuration.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
            configuration.pointee.downMatrix = 1
            _ = NeAACDecSetConfiguration(decoder, configuration)
        }
        var rate: UInt = 0
        var count: UInt8 = 0
        var config = audioSpecificConfig
        let status = config.withUnsafeMutableBufferPointer { bytes in
            NeAACDecInit2(decoder, bytes.baseAddress, UInt(bytes.count), &rate, &count)
        }
        guard status >= 0, rate > 0, (1...8).contains(count) else {
            NeAACDecClose(decoder)
            throw EncoderError(.openFailed, "libfaad2 refused the AudioSpecificConfig "
                + audioSpecificConfig.map { String($0, radix: 16) }.joined(separator: " "))
        }
        self.decoder = decoder
        sampleRate = Int(rate)
        channels = min(Int(count), 2)
    }

    deinit {
        NeAACDecClose(decoder)
    }

    /// Decodes one raw AAC frame (an FLV AAC tag's payload after its two header bytes).
    /// - Returns: interleaved samples in -1...1, ``channels`` per sample frame (1024 frames for AAC-LC; none while
    ///   the decoder primes).
    /// - Throws: `EncoderError` `.invalidInput` when the frame cannot be decoded (a peer's corrupt bytes).
    public func decode(_ frame: [UInt8]) throws -> [Float] {
        guard !frame.isEmpty else { throw EncoderError(.invalidInput, "an empty AAC frame") }
        var info = NeAACDecFrameInfo()
        var bytes = frame
        let output = bytes.withUnsafeMutableBufferPointer { buffer in
            NeAACDecDecode(decoder, &info, buffer.baseAddress, UInt(buffer.count))
        }
        guard info.error == 0 else {
            let reason = NeAACDecGetErrorMessage(info.error).map { String(cString: $0) } ?? "error \(info.error)"
            throw EncoderError(.invalidInput, "libfaad2 could not decode a \(frame.count)-byte AAC frame: \(reason)")
        }
        guard let output, info.samples > 0 else { return [] }
        let samples = output.assumingMemoryBound(to: Float.self)
        let decodedChannels = max(Int(info.channels), 1)
        let count = Int(info.samples)
        if decodedChannels == channels {
            return Array(UnsafeBufferPointer(start: samples, count: count))
        }
        // A mono stream FAAD2 outputs as stereo (parametric stereo), or the reverse: keep what was asked.
        let frames = count / decodedChannels
        var result = [Float](repeating: 0, count: frames * channels)
        for index in 0..<frames {
            for channel in 0..<channels {
                let source = index * decodedChannels + min(channel, decodedChannels - 1)
                result[index * channels + channel] = samples[source]
            }
        }
        return result
    }
}
#endif
