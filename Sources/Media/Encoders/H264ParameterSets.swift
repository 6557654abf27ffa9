/// The H.264 sequence and picture parameter sets of a stream, as needed for an AVC sequence header (avcC).
public struct H264ParameterSets: Sendable, Hashable {
    /// The sequence parameter set NAL unit (type 7), header byte included, without a start code.
    public var sps: [UInt8]
    /// The picture parameter set NAL unit (type 8), header byte included, without a start code.
    public var pps: [UInt8]

    /// Creates parameter sets.
    /// - Parameters:
    ///   - sps: SPS NAL unit without start code.
    ///   - pps: PPS NAL unit without start code.
    public init(sps: [UInt8], pps: [UInt8]) {
        self.sps = sps
        self.pps = pps
    }
}
