/// Opus in an FLV audio tag, as Enhanced RTMP v2 (Veovera, 2024) carries it: an `ExHeader` audio tag.
///
/// ```
/// SoundFormat UB[4] = 9 (ExHeader)   AudioPacketType UB[4] = 0 SequenceStart | 1 CodedFrames
/// AudioFourCc UI32 = 'Opus'
/// Data: the OpusHead identification header (RFC 7845 §5.1) | one Opus packet (RFC 6716)
/// ```
/// The broadcaster uses these tags to carry Opus through the same engine (queue, drops, reconnects) as AAC when the
/// destination is WHIP; an FLV recording of such a broadcast is an Enhanced FLV file.
public enum FLVOpusAudio {
    /// SoundFormat 9: the enhanced audio header follows.
    public static let exHeaderSoundFormat: UInt8 = 9
    /// AudioPacketType 0: the decoder configuration (OpusHead).
    public static let sequenceStart: UInt8 = 0
    /// AudioPacketType 1: coded frames.
    public static let codedFrames: UInt8 = 1
    /// The FourCC `Opus`.
    public static let fourCC: [UInt8] = Array("Opus".utf8)
    /// `onMetaData`'s `audiocodecid` for Opus: the FourCC as a number, as Enhanced RTMP writes it.
    public static let audioCodecID: Double = 0x4F70_7573
    /// The bytes before the payload.
    public static let headerSize = 5

    /// What an Opus tag holds.
    public enum Payload: Sendable, Hashable {
        /// The OpusHead identification header.
        case sequenceStart([UInt8])
        /// One Opus packet.
        case packet([UInt8])
    }

    /// The OpusHead identification header (RFC 7845 §5.1) for a stream of `channels` at 48 kHz.
    /// - Parameters:
    ///   - channels: 1 or 2.
    ///   - preSkip: samples to drop at the start (the encoder's lookahead), at 48 kHz.
    public static func identificationHeader(channels: Int, preSkip: Int) -> [UInt8] {
        let skip = UInt16(clamping: preSkip)
        let rate: UInt32 = 48_000
        return Array("OpusHead".utf8) + [
            1,                                                      // version
            UInt8(clamping: channels),                              // output channel count
            UInt8(truncatingIfNeeded: skip), UInt8(truncatingIfNeeded: skip >> 8),  // pre-skip, little-endian
            UInt8(truncatingIfNeeded: rate), UInt8(truncatingIfNeeded: rate >> 8),  // input sample rate
            UInt8(truncatingIfNeeded: rate >> 16), UInt8(truncatingIfNeeded: rate >> 24),
            0, 0,                                                   // output gain
            0,                                                      // channel mapping family 0
        ]
    }

    /// The tag body for `payload`.
    public static func body(_ payload: Payload) -> [UInt8] {
        switch payload {
        case .sequenceStart(let head): [exHeaderSoundFormat << 4 | sequenceStart] + fourCC + head
        case .packet(let data): [exHeaderSoundFormat << 4 | codedFrames] + fourCC + data
        }
    }

    /// Reads an audio tag body as Opus.
    /// - Returns: the payload, or nil when the body is not an enhanced Opus tag of a known packet type (AAC, another
    ///   codec, a sequence end).
    public static func payload(of body: [UInt8]) -> Payload? {
        guard body.count >= headerSize, body[0] >> 4 == exHeaderSoundFormat,
              Array(body[1..<headerSize]) == fourCC else { return nil }
        let data = Array(body[headerSize...])
        switch body[0] & 0x0F {
        case sequenceStart: return .sequenceStart(data)
        case codedFrames: return .packet(data)
        default: return nil
        }
    }
}

extension FLVTag {
    /// An Opus audio tag (Enhanced RTMP's ExHeader form).
    public init(opus payload: FLVOpusAudio.Payload, timestamp: UInt32) {
        self.init(type: .audio, timestamp: timestamp, body: FLVOpusAudio.body(payload))
    }
}
