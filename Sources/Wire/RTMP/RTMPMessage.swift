/// One RTMP message (RTMP §5.3.1 message header fields plus the payload), before chunking or after
/// reassembly. The payload is opaque here; typed views live in `ProtocolControlMessage`, `UserControlEvent`,
/// `CommandMessage` and `DataMessage`. Unknown type ids are passed through as they are.
public struct RTMPMessage: Sendable, Equatable {
    /// The chunk stream the message travels on (2...65599); RTMP §5.3.1.1.
    public var chunkStreamID: UInt32
    /// The message timestamp in milliseconds; it wraps at 2^32 (RTMP §5.3.1.2).
    public var timestamp: UInt32
    /// The raw message type id (see `RTMPMessageType`).
    public var typeID: UInt8
    /// The message stream id (0 for connection-level messages).
    public var streamID: UInt32
    /// The message body.
    public var payload: [UInt8]

    /// Creates a message.
    /// - Parameters:
    ///   - chunkStreamID: the chunk stream to send it on (2 for protocol control, 3 for commands by convention).
    ///   - timestamp: milliseconds.
    ///   - typeID: the raw type id.
    ///   - streamID: the message stream id.
    ///   - payload: the body.
    public init(chunkStreamID: UInt32, timestamp: UInt32, typeID: UInt8, streamID: UInt32, payload: [UInt8]) {
        self.chunkStreamID = chunkStreamID
        self.timestamp = timestamp
        self.typeID = typeID
        self.streamID = streamID
        self.payload = payload
    }

    /// Creates a message of a known type.
    public init(chunkStreamID: UInt32, timestamp: UInt32, type: RTMPMessageType, streamID: UInt32,
                payload: [UInt8]) {
        self.init(chunkStreamID: chunkStreamID, timestamp: timestamp, typeID: type.rawValue, streamID: streamID,
                  payload: payload)
    }

    /// The known type, or nil for an id this module does not name.
    public var type: RTMPMessageType? { RTMPMessageType(rawValue: typeID) }
}
