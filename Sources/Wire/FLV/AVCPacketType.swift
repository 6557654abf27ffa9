/// The AVCPacketType of an AVC video tag (FLV spec v10.1 §E.4.3.1).
public enum AVCPacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// The data is an AVCDecoderConfigurationRecord.
    case sequenceHeader = 0
    /// The data is one access unit as 4-byte length-prefixed NAL units.
    case nalu = 1
    /// End of sequence; the data is empty.
    case endOfSequence = 2
}
