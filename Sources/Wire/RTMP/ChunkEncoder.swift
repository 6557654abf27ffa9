import ByteIO

/// Splits messages into chunks (RTMP §5.3).
///
/// For each chunk stream it remembers the previous message header and picks the smallest header type:
/// fmt 0 for the first message, a new message stream id or a timestamp going backwards; fmt 1 when length or
/// type changed; fmt 2 when only the timestamp delta changed; fmt 3 when the delta repeats too. Continuation
/// chunks are fmt 3 and, when the header used an extended timestamp, repeat its 4 bytes (RTMP §5.3.1.3), as
/// Flash, ffmpeg and nginx-rtmp expect.
public struct ChunkEncoder: Sendable {
    /// RTMP §5.4.1: the chunk size both ends start with.
    public static let defaultChunkSize: UInt32 = 128
    /// RTMP §5.4.1: the chunk size is 31 bits (the first bit must be zero).
    public static let maximumChunkSize: UInt32 = 0x7FFF_FFFF
    /// RTMP §5.3.1.2: timestamps (and deltas) at or above this value go into the extended timestamp field.
    static let extendedTimestampMarker: UInt32 = 0xFF_FFFF
    /// RTMP §5.3.1.2.2: the message length is a 24-bit field.
    public static let maximumMessageLength = 0xFF_FFFF

    private struct PreviousHeader: Sendable {
        var timestamp: UInt32
        var length: Int
        var typeID: UInt8
        var streamID: UInt32
        /// The delta that a following fmt-3 message would repeat, or nil after a fmt-0 header (we never send
        /// fmt 3 for a new message after fmt 0: implementations disagree on what delta that means).
        var delta: UInt32?
    }

    private var previous = ChunkStreamMap<PreviousHeader>()
    /// The outgoing chunk size. Change it right after sending a Set Chunk Size message with the same value.
    public private(set) var chunkSize: UInt32 = ChunkEncoder.defaultChunkSize

    /// Creates an encoder with the default chunk size of 128.
    public init() {}

    /// Sets the outgoing chunk size, after a Set Chunk Size message announcing it has been encoded.
    /// - Parameter size: 1...0x7FFFFFFF.
    public mutating func setChunkSize(_ size: UInt32) {
        precondition(size >= 1 && size <= ChunkEncoder.maximumChunkSize, "chunk size out of range (RTMP §5.4.1)")
        chunkSize = size
    }

    /// Encodes one message as chunks.
    /// - Parameter message: the message; its chunk stream id must be 2...65599 (chosen by our own code).
    /// - Returns: the chunk bytes.
    /// - Throws: ``RTMPError`` `.messageTooLarge` when the payload is longer than RTMP's 24-bit length field
    ///   allows (16 MiB - 1, e.g. a huge keyframe); nothing is encoded and the encoder's state is unchanged, so
    ///   the next message goes out as if this one had never been offered.
    public mutating func encode(_ message: RTMPMessage) throws(RTMPError) -> [UInt8] {
        var writer = ByteWriter(capacity: Self.encodedCapacity(length: message.payload.count, chunkSize: chunkSize))
        try encode(message, into: &writer)
        return writer.bytes
    }

    /// Encodes one message as chunks, appending to a writer.
    /// - Throws: ``RTMPError`` `.messageTooLarge` (see ``encode(_:)``); nothing is written then.
    public mutating func encode(_ message: RTMPMessage, into writer: inout ByteWriter) throws(RTMPError) {
        let csid = message.chunkStreamID
        precondition(csid >= ChunkStreamID.minimum && csid <= ChunkStreamID.maximum, "chunk stream id out of range")
        guard message.payload.count <= ChunkEncoder.maximumMessageLength else {
            throw RTMPError.cannotSend(length: message.payload.count, limit: ChunkEncoder.maximumMessageLength)
        }

        let length = message.payload.count
        let fmt: UInt8
        let timestampField: UInt32
        var delta: UInt32? = nil
        if let last = previous[csid], last.streamID == message.streamID, message.timestamp >= last.timestamp {
            let thisDelta = message.timestamp &- last.timestamp
            delta = thisDelta
            if last.length != length || last.typeID != message.typeID {
                fmt = 1
            } else if last.delta == thisDelta {
                fmt = 3
            } else {
                fmt = 2
            }
            timestampField = thisDelta
        } else {
            fmt = 0
            timestampField = message.timestamp
        }
        previous[csid] = PreviousHeader(timestamp: message.timestamp, length: length, typeID: message.typeID,
                                        streamID: message.streamID, delta: delta)
        Self.writeChunks(message, fmt: fmt, timestampField: timestampField, chunkSize: chunkSize, into: &writer)
    }

    /// Writes `message` as chunks: the first with a `fmt` header carrying `timestampField`, then fmt 3 continuations.
    private static func writeChunks(_ message: RTMPMessage, fmt: UInt8, timestampField: UInt32, chunkSize: UInt32,
                                    into writer: inout ByteWriter) {
        let csid = message.chunkStreamID
        let length = message.payload.count
        let extended = timestampField >= ChunkEncoder.extendedTimestampMarker
        let field24 = extended ? ChunkEncoder.extendedTimestampMarker : timestampField
        writeBasicHeader(fmt: fmt, csid: csid, into: &writer)
        switch fmt {
        case 0:
            writer.writeUInt24(field24)
            writer.writeUInt24(UInt32(length))
            writer.writeUInt8(message.typeID)
            writer.writeUInt32LE(message.streamID)  // RTMP §5.3.1.2.1: little-endian
        case 1:
            writer.writeUInt24(field24)
            writer.writeUInt24(UInt32(length))
            writer.writeUInt8(message.typeID)
        case 2:
            writer.writeUInt24(field24)
        default:
            break
        }
        if extended { writer.writeUInt32(timestampField) }

        let size = Int(chunkSize)
        var offset = 0
        repeat {
            if offset > 0 {
                writeBasicHeader(fmt: 3, csid: csid, into: &writer)
                if extended { writer.writeUInt32(timestampField) }
            }
            let end = min(offset + size, length)
            writer.writeBytes(message.payload[offset..<end])
            offset = end
        } while offset < length
    }

    /// Encodes `message` as if it were the first on its chunk stream: a type-0 header (absolute timestamp, length,
    /// type and message stream id), then type-3 continuation chunks. The bytes depend only on the message and the
    /// chunk size, so one encoding can go to every connection with that chunk size (see ``SharedMediaChunks``);
    /// each then records it with ``noteStandalone(_:)``.
    /// - Throws: ``RTMPError`` `.messageTooLarge` (see ``encode(_:)``).
    public static func encodeStandalone(_ message: RTMPMessage, chunkSize: UInt32) throws(RTMPError) -> [UInt8] {
        precondition(chunkSize >= 1 && chunkSize <= ChunkEncoder.maximumChunkSize,
                     "chunk size out of range (RTMP §5.4.1)")
        let csid = message.chunkStreamID
        precondition(csid >= ChunkStreamID.minimum && csid <= ChunkStreamID.maximum, "chunk stream id out of range")
        let length = message.payload.count
        guard length <= ChunkEncoder.maximumMessageLength else {
            throw RTMPError.cannotSend(length: length, limit: ChunkEncoder.maximumMessageLength)
        }
        // A relay calls this for every message it relays: the bytes are laid out in one allocation of the exact
        // size, the payload copied a chunk at a time.
        let timestamp = message.timestamp
        let extended = timestamp >= ChunkEncoder.extendedTimestampMarker
        let field24 = extended ? ChunkEncoder.extendedTimestampMarker : timestamp
        let basic = basicHeaderSize(csid)
        let continuationHeader = basic + (extended ? 4 : 0)
        let size = Int(chunkSize)
        let chunks = max(1, length / size + (length % size == 0 ? 0 : 1))
        let total = basic + 11 + (extended ? 4 : 0) + length + (chunks - 1) * continuationHeader
        // Appended into capacity reserved up front: `init(unsafeUninitializedCapacity:)` (and `init(repeating:count:)`)
        // ran unspecialized here and looked the array's storage type up in the runtime's metadata cache for every
        // message (~2 % of a relay's CPU); the appends below are specialized.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        appendBasicHeader(fmt: 0, csid: csid, to: &bytes)
        let length24 = UInt32(length)
        bytes.append(UInt8(truncatingIfNeeded: field24 >> 16))
        bytes.append(UInt8(truncatingIfNeeded: field24 >> 8))
        bytes.append(UInt8(truncatingIfNeeded: field24))
        bytes.append(UInt8(truncatingIfNeeded: length24 >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length24 >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length24))
        bytes.append(message.typeID)
        // RTMP §5.3.1.2.1: the message stream id is little-endian.
        bytes.append(UInt8(truncatingIfNeeded: message.streamID))
        bytes.append(UInt8(truncatingIfNeeded: message.streamID >> 8))
        bytes.append(UInt8(truncatingIfNeeded: message.streamID >> 16))
        bytes.append(UInt8(truncatingIfNeeded: message.streamID >> 24))
        if extended { appendExtendedTimestamp(timestamp, to: &bytes) }
        message.payload.withUnsafeBufferPointer { payload in
            var offset = 0
            repeat {
                if offset > 0 {
                    appendBasicHeader(fmt: 3, csid: csid, to: &bytes)
                    if extended { appendExtendedTimestamp(timestamp, to: &bytes) }
                }
                let end = min(offset + size, length)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: payload[offset..<end]))
                offset = end
            } while offset < length
        }
        precondition(bytes.count == total, "standalone chunk encoding miscounted its size")
        return bytes
    }

    /// The bytes of a basic header for `csid` (RTMP §5.3.1.1).
    private static func basicHeaderSize(_ csid: UInt32) -> Int {
        csid <= 63 ? 1 : csid <= 319 ? 2 : 3
    }

    /// Appends a basic header (RTMP §5.3.1.1).
    private static func appendBasicHeader(fmt: UInt8, csid: UInt32, to bytes: inout [UInt8]) {
        basicHeader(fmt: fmt, csid: csid) { bytes.append($0) }
    }

    /// The bytes of a basic header, in order (RTMP §5.3.1.1: 1-byte form for ids 2...63, 2-byte for 64...319,
    /// 3-byte for 320...65599).
    private static func basicHeader(fmt: UInt8, csid: UInt32, _ emit: (UInt8) -> Void) {
        if csid <= 63 {
            emit(fmt << 6 | UInt8(csid))
        } else if csid <= 319 {
            emit(fmt << 6)
            emit(UInt8(csid - 64))
        } else {
            let value = csid - 64
            emit(fmt << 6 | 1)
            emit(UInt8(truncatingIfNeeded: value))  // low byte first (RTMP §5.3.1.1)
            emit(UInt8(truncatingIfNeeded: value >> 8))
        }
    }

    /// Appends a 4-byte big-endian extended timestamp.
    private static func appendExtendedTimestamp(_ timestamp: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: timestamp >> 24))
        bytes.append(UInt8(truncatingIfNeeded: timestamp >> 16))
        bytes.append(UInt8(truncatingIfNeeded: timestamp >> 8))
        bytes.append(UInt8(truncatingIfNeeded: timestamp))
    }

    /// The payload of a message that ``encodeStandalone(_:chunkSize:)`` encoded as `bytes`, given the chunk stream
    /// id, timestamp, payload length and chunk size it was encoded with: the inverse of that encoding (the chunk
    /// headers removed), for bytes this encoder made.
    static func standalonePayload(_ bytes: [UInt8], chunkStreamID csid: UInt32, timestamp: UInt32, length: Int,
                                  chunkSize: UInt32) -> [UInt8] {
        let basic = basicHeaderSize(csid)
        let extended = timestamp >= ChunkEncoder.extendedTimestampMarker ? 4 : 0
        var payload: [UInt8] = []
        payload.reserveCapacity(length)
        var offset = basic + 11 + extended
        let size = Int(chunkSize)
        repeat {
            let take = min(size, length - payload.count)
            payload.appendBytes(bytes[offset..<(offset + take)])
            offset += take + basic + extended
        } while payload.count < length
        return payload
    }

    /// Records that `message` went out as ``encodeStandalone(_:chunkSize:)`` encoded it (type-0 header), so the
    /// next message on its chunk stream gets the smallest header relative to it, as after ``encode(_:)``.
    public mutating func noteStandalone(_ message: RTMPMessage) {
        noteStandalone(chunkStreamID: message.chunkStreamID, timestamp: message.timestamp,
                       length: message.payload.count, typeID: message.typeID, streamID: message.streamID)
    }

    /// ``noteStandalone(_:)`` from the header fields alone.
    public mutating func noteStandalone(chunkStreamID: UInt32, timestamp: UInt32, length: Int, typeID: UInt8,
                                        streamID: UInt32) {
        previous[chunkStreamID] = PreviousHeader(timestamp: timestamp, length: length, typeID: typeID,
                                                 streamID: streamID, delta: nil)
    }

    /// The most bytes a message of `length` bytes takes as chunks: one header of at most 18 bytes (3-byte basic
    /// header, 11-byte message header, extended timestamp), then at most 7 bytes per further chunk.
    private static func encodedCapacity(length: Int, chunkSize: UInt32) -> Int {
        let size = Int(chunkSize)
        let chunks = max(1, length / size + (length % size == 0 ? 0 : 1))
        return length + 18 + (chunks - 1) * 7
    }

    /// Writes a basic header (RTMP §5.3.1.1).
    private static func writeBasicHeader(fmt: UInt8, csid: UInt32, into writer: inout ByteWriter) {
        basicHeader(fmt: fmt, csid: csid) { writer.writeUInt8($0) }
    }
}
