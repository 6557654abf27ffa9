/// The FrameType of a VIDEODATA header (FLV spec v10.1 §E.4.3.1, the upper 4 bits of the first body byte).
public enum FLVVideoFrameType: UInt8, Sendable, Hashable, CaseIterable {
    /// A key frame (for AVC, a seekable frame: an IDR picture).
    case keyFrame = 1
    /// An inter frame (for AVC, a non-seekable frame).
    case interFrame = 2
    /// A disposable inter frame (H.263 only).
    case disposableInterFrame = 3
    /// A generated key frame (reserved for server use).
    case generatedKeyFrame = 4
    /// A video info or command frame.
    case videoInfoOrCommand = 5
}
