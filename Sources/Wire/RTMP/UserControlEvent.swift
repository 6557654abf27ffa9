import ByteIO

/// A User Control Message event (RTMP §6.2, §7.1.7): a 16-bit event type then event data.
public enum UserControlEvent: Sendable, Equatable {
    /// 0: the server tells the client a stream became functional.
    case streamBegin(streamID: UInt32)
    /// 1: playback of the stream is over.
    case streamEOF(streamID: UInt32)
    /// 2: no more data on the stream for now.
    case streamDry(streamID: UInt32)
    /// 3: the client's buffer length in milliseconds.
    case setBufferLength(streamID: UInt32, milliseconds: UInt32)
    /// 4: the stream is a recorded stream.
    case streamIsRecorded(streamID: UInt32)
    /// 6: the server checks the client is reachable; answer with `pingResponse` carrying the same timestamp.
    case pingRequest(timestamp: UInt32)
    /// 7: the answer to a ping request.
    case pingResponse(timestamp: UInt32)
    /// Any other event type, passed through.
    case unknown(eventType: UInt16, data: [UInt8])

    /// Decodes an event from a type 4 message body.
    /// - Throws: `RTMPError` when the body is too short for its event type.
    public init(payload: [UInt8]) throws(RTMPError) {
        var reader = ByteReader(payload)
        guard let eventType = reader.readUInt16() else {
            throw RTMPError.malformedMessage("user control message shorter than its 2-byte event type")
        }
        func value() throws(RTMPError) -> UInt32 {
            guard let value = reader.readUInt32() else {
                throw RTMPError.malformedMessage("user control event \(eventType) without its 4-byte value")
            }
            return value
        }
        switch eventType {
        case 0: self = .streamBegin(streamID: try value())
        case 1: self = .streamEOF(streamID: try value())
        case 2: self = .streamDry(streamID: try value())
        case 3:
            let streamID = try value()
            self = .setBufferLength(streamID: streamID, milliseconds: try value())
        case 4: self = .streamIsRecorded(streamID: try value())
        case 6: self = .pingRequest(timestamp: try value())
        case 7: self = .pingResponse(timestamp: try value())
        default: self = .unknown(eventType: eventType, data: reader.readRemaining())
        }
    }

    /// The type 4 message body.
    public var payload: [UInt8] {
        var writer = ByteWriter(capacity: 10)
        switch self {
        case .streamBegin(let streamID):
            writer.writeUInt16(0)
            writer.writeUInt32(streamID)
        case .streamEOF(let streamID):
            writer.writeUInt16(1)
            writer.writeUInt32(streamID)
        case .streamDry(let streamID):
            writer.writeUInt16(2)
            writer.writeUInt32(streamID)
        case .setBufferLength(let streamID, let milliseconds):
            writer.writeUInt16(3)
            writer.writeUInt32(streamID)
            writer.writeUInt32(milliseconds)
        case .streamIsRecorded(let streamID):
            writer.writeUInt16(4)
            writer.writeUInt32(streamID)
        case .pingRequest(let timestamp):
            writer.writeUInt16(6)
            writer.writeUInt32(timestamp)
        case .pingResponse(let timestamp):
            writer.writeUInt16(7)
            writer.writeUInt32(timestamp)
        case .unknown(let eventType, let data):
            writer.writeUInt16(eventType)
            writer.writeBytes(data)
        }
        return writer.bytes
    }
}
