import FLV

/// An AAC audio track as the init segment describes it: the AudioSpecificConfig and what follows from it.
public struct AudioTrack: Sendable, Hashable {
    /// The track ID of audio in every init segment and fragment written here.
    public static let trackID: UInt32 = 2
    /// ISO/IEC 14496-3 §4.5.1.1 (frameLengthFlag 0): an AAC frame holds 1024 samples per channel. The 960-sample
    /// variant is not used by any encoder that publishes over RTMP.
    public static let samplesPerFrame = 1024

    /// The configuration, parsed.
    public let configuration: AudioSpecificConfig
    /// The configuration exactly as the encoder sent it (written into `esds` unchanged, so SBR/PS signalling
    /// survives).
    public let configurationBytes: [UInt8]

    /// Describes a track from the data of an AAC sequence header.
    /// - Parameter configurationBytes: an AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1).
    /// - Throws: ``MP4Error`` when it is malformed or longer than an MPEG-4 descriptor of this kind allows.
    public init(configurationBytes: [UInt8]) throws(MP4Error) {
        do {
            configuration = try AudioSpecificConfig(parsing: configurationBytes)
        } catch {
            throw MP4Error(.invalidConfiguration, "the AAC sequence header is malformed: \(error.message)")
        }
        guard configurationBytes.count <= Self.maximumConfigurationSize else {
            throw MP4Error(.invalidConfiguration, "an AudioSpecificConfig of \(configurationBytes.count) bytes is "
                + "longer than \(Self.maximumConfigurationSize); the AAC sequence header is corrupt")
        }
        self.configurationBytes = configurationBytes
    }

    /// The longest AudioSpecificConfig accepted; real ones are 2 to 7 bytes.
    public static let maximumConfigurationSize = 64

    /// The media timescale: one tick per sample.
    public var timescale: UInt32 { UInt32(clamping: configuration.sampleRate) }

    /// Channels: from the channel configuration (ISO/IEC 14496-3 Table 1.19; 7 is 7.1), 2 when it is 0
    /// (defined in the stream).
    public var channelCount: Int {
        switch configuration.channelConfiguration {
        case 0: 2
        case 7: 8
        case let value: Int(min(value, 6))
        }
    }

    /// The RFC 6381 codec string, e.g. "mp4a.40.2" for AAC-LC.
    public var codec: String { "mp4a.40.\(configuration.objectType)" }
}
