/// One compressed H.264 access unit (one picture) as produced by a `VideoEncoder`.
public struct EncodedVideoPacket: Sendable, Hashable {
    /// The access unit in Annex B form: NAL units each preceded by a `00 00 01` or `00 00 00 01` start code.
    /// Keyframes carry their SPS and PPS inline.
    public var data: [UInt8]
    /// Presentation timestamp in milliseconds, as given to `encode`.
    public var pts: Int64
    /// Decode timestamp in milliseconds; equals `pts` when the encoder uses no B-frames (the live default).
    public var dts: Int64
    /// True for an IDR picture: a decoder (or a player joining late) can start here.
    public var isKeyframe: Bool

    /// Creates a packet.
    /// - Parameters:
    ///   - data: Annex B bytes of one access unit.
    ///   - pts: presentation time in milliseconds.
    ///   - dts: decode time in milliseconds.
    ///   - isKeyframe: whether the access unit is an IDR picture.
    public init(data: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.isKeyframe = isKeyframe
    }
}
