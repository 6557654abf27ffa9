/// One compressed H.264 access unit (one picture) as produced by a `VideoEncoder`.
public struct EncodedVideoPacket: Sendable, Hashable {
    /// How the NAL units of `data` are delimited.
    public enum Framing: Sendable, Hashable {
        /// Annex B: each NAL unit after a `00 00 01` or `00 00 00 01` start code, as x264 emits them.
        case annexB
        /// Each NAL unit after its 4-byte big-endian length (ISO/IEC 14496-15 §5.3.4.2), as VideoToolbox emits them
        /// and FLV and MP4 carry them: an FLV writer takes these bytes as they are.
        case lengthPrefixed
    }

    /// The access unit's NAL units, delimited as `framing` says. Keyframes carry their SPS and PPS inline.
    public var data: [UInt8]
    /// How `data` delimits its NAL units: a consumer converts by it (an encoder emits what it has, so that a frame
    /// is not converted twice on its way to FLV).
    public var framing: Framing
    /// Presentation timestamp in milliseconds, as given to `encode`.
    public var pts: Int64
    /// Decode timestamp in milliseconds; equals `pts` when the encoder uses no B-frames (the live default).
    public var dts: Int64
    /// True for an IDR picture: a decoder (or a player joining late) can start here.
    public var isKeyframe: Bool

    /// Creates a packet.
    /// - Parameters:
    ///   - data: the NAL units of one access unit.
    ///   - pts: presentation time in milliseconds.
    ///   - dts: decode time in milliseconds.
    ///   - isKeyframe: whether the access unit is an IDR picture.
    ///   - framing: how `data` delimits its NAL units; Annex B unless said.
    public init(data: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool, framing: Framing = .annexB) {
        self.data = data
        self.framing = framing
        self.pts = pts
        self.dts = dts
        self.isKeyframe = isKeyframe
    }
}
