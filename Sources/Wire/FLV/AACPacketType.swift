/// The AACPacketType of an AAC audio tag (FLV spec v10.1 §E.4.2.1).
public enum AACPacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// The data is an AudioSpecificConfig.
    case sequenceHeader = 0
    /// The data is one raw AAC frame (no ADTS header).
    case raw = 1
}
