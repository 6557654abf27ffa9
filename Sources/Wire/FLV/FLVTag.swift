/// One FLV tag: the unit of an FLV file and of RTMP audio, video and data messages.
///
/// The body is the complete tag payload (e.g. for video: the VIDEODATA header byte, the AVC packet type,
/// composition time and the NAL units). The stream id of FLV tags is always 0 and is not stored.
public struct FLVTag: Sendable, Hashable {
    /// FLV spec §E.4.1: DataSize is a 24-bit field, so a tag body holds at most 16 MiB - 1 bytes.
    public static let maximumBodySize = 0xFF_FFFF

    /// Whether this is audio, video or script data.
    public var type: FLVTagType
    /// Decoding timestamp in milliseconds (24 bits on the wire plus an extended upper byte; wraps after ~49 days).
    public var timestamp: UInt32
    /// The tag payload.
    public var body: [UInt8]

    /// Creates a tag.
    /// - Parameters:
    ///   - type: audio, video or script data.
    ///   - timestamp: decoding timestamp in milliseconds.
    ///   - body: the tag payload, at most `maximumBodySize` bytes to be encodable.
    public init(type: FLVTagType, timestamp: UInt32, body: [UInt8]) {
        self.type = type
        self.timestamp = timestamp
        self.body = body
    }

    /// The header that precedes this tag's body in a file.
    public var header: FLVTagHeader {
        FLVTagHeader(type: type, dataSize: UInt32(truncatingIfNeeded: body.count), timestamp: timestamp)
    }

    /// The size of the tag on the wire (header plus body), as recorded in the PreviousTagSize that follows it.
    public var encodedSize: Int { FLVTagHeader.size + body.count }
}
