import ByteIO

/// The protocol control messages (RTMP §5.4, types 1...6) and User Control messages (§6.2, type 4), typed.
/// They travel on chunk stream 2, message stream 0.
public enum ProtocolControlMessage: Sendable, Equatable {
    /// How the peer should apply a Set Peer Bandwidth (RTMP §5.4.5).
    public enum LimitType: UInt8, Sendable, Equatable {
        /// Limit the output bandwidth to the window size.
        case hard = 0
        /// Limit to the window size or the limit already in effect, whichever is smaller.
        case soft = 1
        /// Hard if the previous limit was hard, else ignore.
        case dynamic = 2
    }

    /// Type 1: the sender's new chunk size.
    case setChunkSize(UInt32)
    /// Type 2: discard the partial message on a chunk stream.
    case abort(chunkStreamID: UInt32)
    /// Type 3: the bytes received so far.
    case acknowledgement(sequenceNumber: UInt32)
    /// Type 4: a user control event.
    case userControl(UserControlEvent)
    /// Type 5: send an Acknowledgement after this many bytes.
    case windowAcknowledgementSize(UInt32)
    /// Type 6: limit the peer's output bandwidth.
    case setPeerBandwidth(windowSize: UInt32, limitType: LimitType)

    /// Decodes a protocol control message.
    /// - Parameter message: a message of type 1...6.
    /// - Returns: nil when the type is not a protocol control type.
    /// - Throws: `RTMPError` when the body is too short.
    public init?(_ message: RTMPMessage) throws(RTMPError) {
        var reader = ByteReader(message.payload)
        func value(_ what: String) throws(RTMPError) -> UInt32 {
            guard let value = reader.readUInt32() else {
                throw RTMPError.malformedMessage("\(what) message without its 4-byte value")
            }
            return value
        }
        switch message.type {
        case .setChunkSize:
            // RTMP §5.4.1: the first bit must be zero; ignore it like ffmpeg and nginx-rtmp do.
            self = .setChunkSize(try value("Set Chunk Size") & 0x7FFF_FFFF)
        case .abort: self = .abort(chunkStreamID: try value("Abort"))
        case .acknowledgement: self = .acknowledgement(sequenceNumber: try value("Acknowledgement"))
        case .userControl: self = .userControl(try UserControlEvent(payload: message.payload))
        case .windowAcknowledgementSize: self = .windowAcknowledgementSize(try value("Window Acknowledgement Size"))
        case .setPeerBandwidth:
            let size = try value("Set Peer Bandwidth")
            // A missing or unknown limit type is read as dynamic, the most lenient meaning.
            let limit = reader.readUInt8().flatMap(LimitType.init(rawValue:)) ?? .dynamic
            self = .setPeerBandwidth(windowSize: size, limitType: limit)
        default:
            return nil
        }
    }

    /// The message type id.
    public var type: RTMPMessageType {
        switch self {
        case .setChunkSize: .setChunkSize
        case .abort: .abort
        case .acknowledgement: .acknowledgement
        case .userControl: .userControl
        case .windowAcknowledgementSize: .windowAcknowledgementSize
        case .setPeerBandwidth: .setPeerBandwidth
        }
    }

    /// The message body.
    public var payload: [UInt8] {
        var writer = ByteWriter(capacity: 5)
        switch self {
        case .setChunkSize(let size): writer.writeUInt32(size & 0x7FFF_FFFF)
        case .abort(let csid): writer.writeUInt32(csid)
        case .acknowledgement(let sequence): writer.writeUInt32(sequence)
        case .userControl(let event): return event.payload
        case .windowAcknowledgementSize(let size): writer.writeUInt32(size)
        case .setPeerBandwidth(let size, let limit):
            writer.writeUInt32(size)
            writer.writeUInt8(limit.rawValue)
        }
        return writer.bytes
    }

    /// The whole message, on chunk stream 2 and message stream 0 (RTMP §5.4).
    /// - Parameter timestamp: the message timestamp (0 is customary).
    public func message(timestamp: UInt32 = 0) -> RTMPMessage {
        RTMPMessage(chunkStreamID: ChunkStreamID.control, timestamp: timestamp, type: type, streamID: 0,
                    payload: payload)
    }
}
