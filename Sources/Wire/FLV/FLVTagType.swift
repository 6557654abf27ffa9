/// The kind of an FLV tag (FLV spec v10.1 §E.4.1, the low 5 bits of the tag's first byte).
public enum FLVTagType: UInt8, Sendable, Hashable, CaseIterable {
    /// An audio tag (8); its body starts with an AUDIODATA header.
    case audio = 8
    /// A video tag (9); its body starts with a VIDEODATA header.
    case video = 9
    /// A script data tag (18), e.g. `onMetaData` in AMF0.
    case scriptData = 18
}
