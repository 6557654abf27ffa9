/// What to encode: the platform-neutral settings every `AudioEncoder` backend honours.
public struct AudioEncoderConfiguration: Sendable, Hashable {
    /// Sample rates AAC can signal with a frequency index (ISO 14496-3 §1.6.3.4, Table 1.18).
    public static let supportedSampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000,
                                              11025, 8000]
    /// Highest accepted bitrate in kbit/s (AAC-LC stereo gains nothing above ~320).
    public static let maximumBitrateKbps = 512

    /// Samples per second per channel.
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo, left then right when interleaved).
    public var channels: Int
    /// Target bitrate in kbit/s.
    public var bitrateKbps: Int

    /// Creates a configuration.
    /// - Parameters:
    ///   - sampleRate: samples per second (default 48 000).
    ///   - channels: 1 or 2 (default 2).
    ///   - bitrateKbps: target bitrate in kbit/s (default 128).
    public init(sampleRate: Int = 48000, channels: Int = 2, bitrateKbps: Int = 128) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrateKbps = bitrateKbps
    }

    /// A short summary for messages, e.g. `48000 Hz stereo at 128 kbps`.
    public var summary: String {
        let layout = channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels"
        return "\(sampleRate) Hz \(layout) at \(bitrateKbps) kbps"
    }

    /// Checks the settings before any codec library sees them.
    /// - Throws: `EncoderError` with code `.invalidConfiguration` naming the bad setting.
    public func validate() throws {
        func fail(_ why: String) -> EncoderError {
            EncoderError(.invalidConfiguration, "cannot encode audio \(summary): \(why)")
        }
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw fail("AAC supports only these sample rates: "
                + Self.supportedSampleRates.map(String.init).joined(separator: ", ") + " Hz; resample first")
        }
        guard channels == 1 || channels == 2 else {
            throw fail("only mono or stereo is supported; mix down first")
        }
        guard bitrateKbps > 0, bitrateKbps <= Self.maximumBitrateKbps else {
            throw fail("the bitrate must be between 1 and \(Self.maximumBitrateKbps) kbps")
        }
    }
}
