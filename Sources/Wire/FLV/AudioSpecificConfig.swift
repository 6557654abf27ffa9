/// The AAC decoder configuration carried in an AAC sequence header (ISO/IEC 14496-3 §1.6.2.1).
///
/// ```
/// audioObjectType UB[5] (31 = escape: 32 + UB[6])
/// samplingFrequencyIndex UB[4] (15 = escape: samplingFrequency UB[24])
/// channelConfiguration UB[4]
/// GASpecificConfig: frameLengthFlag UB[1] = 0 (1024 samples), dependsOnCoreCoder UB[1] = 0, extensionFlag UB[1] = 0
/// ```
/// 48 kHz stereo AAC-LC is `11 90`; 44.1 kHz stereo AAC-LC is `12 10`. Extensions after the channel configuration
/// (GASpecificConfig details, SBR/PS signalling) are ignored when read.
public struct AudioSpecificConfig: Sendable, Hashable {
    /// Audio object type 2: AAC Low Complexity.
    public static let aacLowComplexity: UInt8 = 2
    /// ISO/IEC 14496-3 §1.6.3.4, Table 1.18: the rates of samplingFrequencyIndex 0...12.
    public static let samplingFrequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000,
                                             12000, 11025, 8000, 7350]
    /// samplingFrequencyIndex 15: the rate follows as 24 bits.
    public static let explicitFrequencyIndex: UInt8 = 0x0F
    /// The largest explicit sampling rate: a 24-bit field.
    public static let maximumSampleRate = 0xFF_FFFF
    /// The largest audio object type: 32 + a 6-bit escape value.
    public static let maximumObjectType: UInt8 = 95

    /// The audio object type (2 = AAC-LC).
    public var objectType: UInt8
    /// The sampling rate in Hz.
    public var sampleRate: Int
    /// The channel configuration (1 = mono, 2 = stereo, ... 7 = 7.1; 0 = defined in the stream).
    public var channelConfiguration: UInt8

    /// Creates a configuration.
    /// - Parameters:
    ///   - objectType: 1...30 or 32...95, default AAC-LC.
    ///   - sampleRate: 1...16777215 Hz; rates in `samplingFrequencies` are written as an index, others in full.
    ///   - channelConfiguration: 0...15.
    public init(objectType: UInt8 = aacLowComplexity, sampleRate: Int, channelConfiguration: UInt8) {
        self.objectType = objectType
        self.sampleRate = sampleRate
        self.channelConfiguration = channelConfiguration
    }

    /// The samplingFrequencyIndex written for `sampleRate`: its index in `samplingFrequencies`, or 15.
    public var samplingFrequencyIndex: UInt8 {
        Self.samplingFrequencies.firstIndex(of: sampleRate).map { UInt8($0) } ?? Self.explicitFrequencyIndex
    }

    /// The encoded configuration (2 bytes for common rates, 5 with an explicit rate).
    /// Out-of-range fields are clamped (`sampleRate`, `objectType`) or truncated to 4 bits (`channelConfiguration`).
    public func encode() -> [UInt8] {
        var writer = BitWriter()
        let objectType = min(max(objectType, 1), Self.maximumObjectType)
        if objectType >= 31 {
            // 31 is the escape itself, not a type: it is written as the first escaped type, 32.
            writer.write(31, bits: 5)
            writer.write(UInt32(max(objectType, 32) - 32), bits: 6)
        } else {
            writer.write(UInt32(objectType), bits: 5)
        }
        let index = samplingFrequencyIndex
        writer.write(UInt32(index), bits: 4)
        if index == Self.explicitFrequencyIndex {
            writer.write(UInt32(min(max(sampleRate, 0), Self.maximumSampleRate)), bits: 24)
        }
        writer.write(UInt32(channelConfiguration & 0x0F), bits: 4)
        // GASpecificConfig: frameLengthFlag, dependsOnCoreCoder, extensionFlag all 0.
        writer.write(0, bits: 3)
        return writer.bytes
    }

    /// Parses a configuration, e.g. the data of an AAC sequence header tag.
    /// - Throws: `FLVError` when it is too short, the object type is 0, the frequency index is reserved (13, 14)
    ///   or the explicit rate is 0.
    public init(parsing bytes: [UInt8]) throws(FLVError) {
        var reader = BitReader(bytes)
        guard var objectType = reader.read(5) else {
            throw FLVError(.invalidAudioSpecificConfig, "config is empty; the AAC sequence header is corrupt")
        }
        if objectType == 31 {
            guard let extended = reader.read(6) else {
                throw Self.truncated(bytes.count)
            }
            objectType = 32 + extended
        }
        guard objectType != 0 else {
            throw FLVError(.invalidAudioSpecificConfig, "audio object type 0 is not a codec; the AAC sequence "
                + "header is corrupt")
        }
        guard let index = reader.read(4) else {
            throw Self.truncated(bytes.count)
        }
        let sampleRate: Int
        if index == UInt32(Self.explicitFrequencyIndex) {
            guard let explicit = reader.read(24) else {
                throw Self.truncated(bytes.count)
            }
            sampleRate = Int(explicit)
        } else if Int(index) < Self.samplingFrequencies.count {
            sampleRate = Self.samplingFrequencies[Int(index)]
        } else {
            throw FLVError(.invalidAudioSpecificConfig, "sampling frequency index \(index) is reserved; the AAC "
                + "sequence header is corrupt")
        }
        guard sampleRate > 0 else {
            throw FLVError(.invalidAudioSpecificConfig, "explicit sampling frequency is 0 Hz; the AAC sequence "
                + "header is corrupt")
        }
        guard let channels = reader.read(4) else {
            throw Self.truncated(bytes.count)
        }
        self.init(objectType: UInt8(truncatingIfNeeded: objectType), sampleRate: sampleRate,
                  channelConfiguration: UInt8(truncatingIfNeeded: channels))
    }

    private static func truncated(_ count: Int) -> FLVError {
        FLVError(.invalidAudioSpecificConfig, "config of \(count) bytes ends inside its fixed fields; the AAC "
            + "sequence header is corrupt")
    }
}
