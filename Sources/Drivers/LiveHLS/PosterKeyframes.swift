import FLV

/// The last keyframe of each live show's main picture, with the parameter sets it was coded with, for posters;
/// without I/O. Fed with the main picture's tags as the LL-HLS origin gets them (an RTMP or a WHIP publish), it keeps
/// one keyframe per show (the tag's body, shared with the tag: no copy) and forgets the show when its main picture
/// ends. Memory is bounded by one tag of at most ``maximumKeyframeSize`` per live show.
public struct PosterKeyframes: Sendable {
    /// A keyframe that can be decoded alone.
    public struct Keyframe: Sendable, Hashable {
        /// The sequence header's decoder configuration (SPS and PPS).
        public var configuration: AVCDecoderConfigurationRecord
        /// The FLV video tag's body: frame type and codec, AVC packet type, composition time, length-prefixed NAL
        /// units.
        public var body: [UInt8]
        /// Counts the show's keyframes: a different number is a different picture.
        public var number: UInt64

        /// Creates a keyframe.
        public init(configuration: AVCDecoderConfigurationRecord, body: [UInt8], number: UInt64) {
            self.configuration = configuration
            self.body = body
            self.number = number
        }

        /// The access unit in Annex B, parameter sets first: what a decoder takes without extradata. Empty when
        /// the NAL units' lengths do not fit the body.
        public func annexB() -> [UInt8] {
            let startCode: [UInt8] = [0, 0, 0, 1]
            var out: [UInt8] = []
            out.reserveCapacity(body.count + 64)
            for set in configuration.sequenceParameterSets + configuration.pictureParameterSets {
                out += startCode
                out += set
            }
            let lengthSize = configuration.nalUnitLengthSize
            var offset = FLVVideoTagBody.headerSize
            while offset < body.count {
                guard body.count - offset >= lengthSize else { return [] }
                var length = 0
                for index in 0..<lengthSize { length = length << 8 | Int(body[offset + index]) }
                offset += lengthSize
                guard length > 0, length <= body.count - offset else { return [] }
                out += startCode
                out += body[offset..<(offset + length)]
                offset += length
            }
            return out
        }
    }

    private struct Show: Sendable {
        var configuration: AVCDecoderConfigurationRecord?
        var keyframe: Keyframe?
        var count: UInt64 = 0
    }

    /// A larger keyframe is not kept (a 1080p IDR at a high bitrate is ~500 KB; an FLV tag can be 16 MB).
    public static let maximumKeyframeSize = 4 << 20

    private var shows: [String: Show] = [:]

    /// Creates a table with no show.
    public init() {}

    /// The number of shows with a main picture.
    public var count: Int { shows.count }

    /// A tag of a show's main picture: a sequence header replaces the configuration, a keyframe the keyframe.
    public mutating func append(_ tag: FLVTag, show name: String) {
        guard tag.type == .video, tag.body.count > FLVVideoTagBody.headerSize, tag.body[0] & 0x80 == 0,
              tag.body[0] & 0x0F == FLVVideoTagBody.avcCodecID else { return }
        var show = shows[name] ?? Show()
        if tag.isSequenceHeader {
            show.configuration = try? AVCDecoderConfigurationRecord(
                parsing: tag.body[FLVVideoTagBody.headerSize...])
        } else if tag.isVideoKeyFrame, tag.body[1] == AVCPacketType.nalu.rawValue,
                  tag.body.count <= Self.maximumKeyframeSize, let configuration = show.configuration {
            show.count &+= 1
            show.keyframe = Keyframe(configuration: configuration, body: tag.body, number: show.count)
        }
        shows[name] = show
    }

    /// The main picture switched to another tile: its keyframe stays until the new tile's first one, but the
    /// configuration is the new tile's (its sequence header comes next).
    public mutating func discontinuity(show name: String) {
        shows[name]?.configuration = nil
    }

    /// The show's main picture ended: its keyframe is dropped.
    public mutating func ended(show name: String) {
        shows[name] = nil
    }

    /// The show's last keyframe, if one came after a sequence header.
    public func keyframe(of name: String) -> Keyframe? {
        shows[name]?.keyframe
    }
}
