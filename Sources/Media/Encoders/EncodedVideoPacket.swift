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

extension EncodedVideoPacket {
    /// A hardware encoder's access unit (VideoToolbox's: NAL units after 4-byte lengths, no B-frames), copied once
    /// into the packet, behind the SPS and PPS in the same form on a keyframe that carries them.
    /// - Parameters:
    ///   - length: the access unit's bytes.
    ///   - parameterSets: the SPS and PPS to put first, or nil.
    ///   - pts: the presentation time in milliseconds (also the decode time).
    ///   - isKeyframe: whether it is an IDR picture.
    ///   - copy: copies the access unit into the buffer it is given (`length` bytes); false when it cannot.
    /// - Returns: the packet, or nil when `copy` failed.
    public init?(lengthPrefixedUnitsOf length: Int, parameterSets: H264ParameterSets?, pts: Int64, isKeyframe: Bool,
                 copy: (UnsafeMutableRawBufferPointer) -> Bool) {
        var data: [UInt8] = []
        data.reserveCapacity(length + (parameterSets.map { 8 + $0.sps.count + $0.pps.count } ?? 0))
        if let parameterSets {
            for unit in [parameterSets.sps, parameterSets.pps] {
                withUnsafeBytes(of: UInt32(truncatingIfNeeded: unit.count).bigEndian) { data.append(contentsOf: $0) }
                data.append(contentsOf: unit)
            }
        }
        let start = data.count
        data.append(contentsOf: repeatElement(0, count: length))
        let copied = data.withUnsafeMutableBytes { bytes in
            copy(UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
        }
        guard copied else { return nil }
        self.init(data: data, pts: pts, dts: pts, isKeyframe: isKeyframe, framing: .lengthPrefixed)
    }
}
