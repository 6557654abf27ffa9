import FLV

/// What every connection must receive before any media: the metadata and the two sequence headers. Kept by the
/// session and re-sent by each output after every (re)connect.
public struct StreamHeaders: Sendable, Hashable {
    /// The `onMetaData` properties.
    public var metadata: FLVMetadata
    /// The AVC sequence header tag (avcC), timestamp 0.
    public var videoSequenceHeader: FLVTag
    /// The AAC sequence header tag (AudioSpecificConfig), timestamp 0.
    public var audioSequenceHeader: FLVTag

    /// Creates headers.
    public init(metadata: FLVMetadata, videoSequenceHeader: FLVTag, audioSequenceHeader: FLVTag) {
        self.metadata = metadata
        self.videoSequenceHeader = videoSequenceHeader
        self.audioSequenceHeader = audioSequenceHeader
    }
}
