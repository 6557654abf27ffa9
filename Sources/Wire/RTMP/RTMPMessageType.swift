/// RTMP message type ids (RTMP §5.4 and §7.1). Unknown ids are carried as raw `UInt8` in `RTMPMessage`.
public enum RTMPMessageType: UInt8, Sendable, Equatable, CaseIterable {
    /// §5.4.1 Set Chunk Size.
    case setChunkSize = 1
    /// §5.4.2 Abort Message.
    case abort = 2
    /// §5.4.3 Acknowledgement.
    case acknowledgement = 3
    /// §6.2 User Control Message.
    case userControl = 4
    /// §5.4.4 Window Acknowledgement Size.
    case windowAcknowledgementSize = 5
    /// §5.4.5 Set Peer Bandwidth.
    case setPeerBandwidth = 6
    /// §7.1.5 Audio (an FLV audio tag body).
    case audio = 8
    /// §7.1.5 Video (an FLV video tag body).
    case video = 9
    /// §7.1.2 Data message, AMF3.
    case amf3Data = 15
    /// §7.1.3 Shared object message, AMF3.
    case amf3SharedObject = 16
    /// §7.1.1 Command message, AMF3.
    case amf3Command = 17
    /// §7.1.2 Data message, AMF0 (`@setDataFrame`, `onMetaData`).
    case amf0Data = 18
    /// §7.1.3 Shared object message, AMF0.
    case amf0SharedObject = 19
    /// §7.1.1 Command message, AMF0 (`connect`, `publish`, `_result`, `onStatus`).
    case amf0Command = 20
    /// §7.1.6 Aggregate message.
    case aggregate = 22
}
