/// An audio, video or data message of a stream, with its body exactly as in an FLV tag body.
public struct MediaMessage: Sendable, Equatable {
    /// Which kind of message; the raw value is the RTMP message type id.
    public enum Kind: UInt8, Sendable, Equatable {
        /// Type 8: an FLV audio tag body.
        case audio = 8
        /// Type 9: an FLV video tag body.
        case video = 9
        /// Type 18: an AMF0 data message body.
        case data = 18

        /// The chunk stream it travels on by convention (4 audio, 6 video, 5 data).
        var chunkStreamID: UInt32 {
            switch self {
            case .audio: ChunkStreamID.audio
            case .video: ChunkStreamID.video
            case .data: ChunkStreamID.data
            }
        }
    }

    /// Which kind of message.
    public var kind: Kind
    /// The timestamp in milliseconds (wraps at 2^32).
    public var timestamp: UInt32
    /// The message stream id.
    public var streamID: UInt32
    /// The body.
    public var body: [UInt8]

    /// Creates a media message.
    public init(kind: Kind, timestamp: UInt32, streamID: UInt32, body: [UInt8]) {
        self.kind = kind
        self.timestamp = timestamp
        self.streamID = streamID
        self.body = body
    }

    /// The RTMP message on the conventional chunk stream for its kind.
    public var message: RTMPMessage {
        RTMPMessage(chunkStreamID: kind.chunkStreamID, timestamp: timestamp, typeID: kind.rawValue,
                    streamID: streamID, payload: body)
    }
}
