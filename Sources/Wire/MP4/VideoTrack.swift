import ByteIO
import FLV

/// An H.264 video track as the init segment describes it: the decoder configuration (avcC) and the picture size
/// read from its SPS.
public struct VideoTrack: Sendable, Hashable {
    /// The track ID of video in every init segment and fragment written here.
    public static let trackID: UInt32 = 1
    /// Video media time is counted at 90 kHz, the MPEG convention; FLV's milliseconds convert exactly.
    public static let timescale: UInt32 = 90_000

    /// The configuration record, parsed.
    public let configuration: AVCDecoderConfigurationRecord
    /// The configuration record exactly as the encoder sent it (written into `avcC` unchanged, so the High-profile
    /// extension fields survive).
    public let configurationBytes: [UInt8]
    /// The first SPS, parsed.
    public let sequenceParameterSet: H264SequenceParameterSet

    /// Describes a track from the data of an AVC sequence header.
    /// - Parameter configurationBytes: an AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1).
    /// - Throws: ``MP4Error`` when the record or its first SPS is malformed.
    public init(configurationBytes: [UInt8]) throws(MP4Error) {
        do {
            configuration = try AVCDecoderConfigurationRecord(parsing: configurationBytes)
        } catch {
            throw MP4Error(.invalidConfiguration, "the AVC sequence header is malformed: \(error.message)")
        }
        guard let sps = configuration.sequenceParameterSets.first else {
            throw MP4Error(.invalidConfiguration, "the AVC sequence header holds no SPS")
        }
        sequenceParameterSet = try H264SequenceParameterSet(parsing: sps)
        self.configurationBytes = configurationBytes
    }

    /// The displayed width in pixels.
    public var width: Int { sequenceParameterSet.width }
    /// The displayed height in pixels.
    public var height: Int { sequenceParameterSet.height }

    /// The RFC 6381 codec string, e.g. "avc1.64001f" (profile, constraint flags and level in hex), as an HLS
    /// `CODECS` attribute or a Media Source `addSourceBuffer` type names it.
    public var codec: String {
        "avc1." + Hex.encode([configuration.profileIndication, configuration.profileCompatibility,
                              configuration.levelIndication])
    }
}
