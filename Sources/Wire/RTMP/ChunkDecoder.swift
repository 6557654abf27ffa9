import ByteIO

/// Reassembles messages from a chunk stream (RTMP §5.3): `append(_:)` bytes, then `next()` until nil.
///
/// Handles all four chunk header types, interleaved chunk streams, 1/2/3-byte basic headers, extended
/// timestamps (on continuation chunks both with the repeated 4-byte field, as Flash and ffmpeg send it, and
/// without, as some encoders do: the decoder checks which), and applies incoming Set Chunk Size and Abort
/// Message itself (they are still returned). Timestamp deltas wrap at 32 bits.
public struct ChunkDecoder: Sendable {
    private struct ChunkStream: Sendable {
        var timestamp: UInt32 = 0
        var length: Int = 0
        var typeID: UInt8 = 0
        var streamID: UInt32 = 0
        /// The timestamp field of the last fmt 0/1/2 header: an absolute timestamp after fmt 0, a delta after
        /// fmt 1/2. A fmt 3 header starting a new message adds it again (RTMP §5.3.1.2.4, example 1).
        var lastDelta: UInt32 = 0
        /// Whether that header carried an extended timestamp, and its value.
        var extended = false
        var extendedValue: UInt32 = 0
    }

    /// The limits in force. A driver may change them as the session's phase changes (a server raises them once
    /// a publish is allowed); they apply to the chunks parsed from then on.
    public var limits: ChunkDecoderLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var streams = ChunkStreamMap<ChunkStream>()
    /// The payload received so far of messages in progress, by chunk stream. Kept apart from the headers so that
    /// appending a chunk never copies the bytes already received.
    private var partials = ChunkStreamMap<[UInt8]>()
    /// The most capacity reserved for a message's payload when its first chunk arrives (a declared length is not
    /// trusted further: past it the array grows as chunks come).
    static let reservedPayloadCapacity = 64 * 1024
    private var bufferedPayloadBytes = 0
    /// The incoming chunk size (RTMP §5.4.1: 128 until the peer sends Set Chunk Size).
    public private(set) var chunkSize: UInt32 = ChunkEncoder.defaultChunkSize

    /// Creates a decoder.
    /// - Parameter limits: what to accept from the peer.
    public init(limits: ChunkDecoderLimits = .default) {
        self.limits = limits
    }

    /// Bytes appended but not yet consumed as whole chunks.
    public var unconsumedByteCount: Int { buffer.count - readIndex }

    /// Bytes held for the peer: unconsumed input and the payload of messages in progress.
    public var bufferedByteCount: Int { unconsumedByteCount + bufferedPayloadBytes }

    /// The input buffer's capacity kept between reads; a larger one (after a big chunk) is freed once consumed.
    private static let retainedCapacity = 64 * 1024

    /// Appends bytes received from the peer.
    public mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        dropConsumed()
        buffer.append(contentsOf: bytes)
    }

    /// Appends bytes received from the peer, lent for the length of the call, with one copy: the generic
    /// ``append(_:)`` took a raw buffer a byte at a time (through the iterator's witness), 30 % of a relay's user
    /// time in a profile.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        dropConsumed()
        bytes.withMemoryRebound(to: UInt8.self) { buffer.append(contentsOf: $0) }
    }

    /// Removes the consumed bytes before an append.
    private mutating func dropConsumed() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count && buffer.capacity > Self.retainedCapacity {
            buffer = []
        } else {
            buffer.removeSubrange(0..<readIndex)
        }
        readIndex = 0
    }

    /// Returns the next complete message.
    /// - Returns: a message, or nil when more bytes are needed.
    /// - Throws: `RTMPError` for a malformed chunk or a peer exceeding `limits`.
    public mutating func next() throws(RTMPError) -> RTMPMessage? {
        while true {
            guard let (message, consumedTo) = try parseChunk() else { return nil }
            readIndex = consumedTo
            if let message {
                try applyControl(message)
                return message
            }
        }
    }

    /// Parses one chunk at `readIndex` and updates the chunk stream state.
    /// - Returns: nil when the chunk is incomplete (nothing changed), else the completed message (if this chunk
    ///   completed one) and the index after the chunk.
    private mutating func parseChunk() throws(RTMPError) -> (RTMPMessage?, Int)? {
        var reader = ByteReader(buffer)
        reader.moveReaderIndex(to: readIndex)

        // RTMP §5.3.1.1 basic header.
        guard let first = reader.readUInt8() else { return nil }
        let fmt = first >> 6
        var csid = UInt32(first & 0x3F)
        if csid == 0 {
            guard let byte = reader.readUInt8() else { return nil }
            csid = UInt32(byte) + 64
        } else if csid == 1 {
            guard let low = reader.readUInt8(), let high = reader.readUInt8() else { return nil }
            csid = UInt32(high) << 8 + UInt32(low) + 64
        }

        let known = streams[csid]
        if known == nil {
            guard fmt == 0 else {
                throw RTMPError.malformedChunk(
                    "chunk header type \(fmt) on chunk stream \(csid) with no previous header")
            }
            guard streams.count < limits.maximumChunkStreams else {
                throw RTMPError.resourceLimitExceeded("more than \(limits.maximumChunkStreams) chunk streams")
            }
        }
        var stream = known ?? ChunkStream()
        // Bytes already received of a message on this chunk stream; a fmt 0/1/2 header in the middle of a message
        // means the peer gave up on it without an Abort, and it is dropped when this chunk is committed.
        let pending = partials[csid]?.count
        var received = pending

        // RTMP §5.3.1.2 message header.
        var timestampField: UInt32 = 0
        switch fmt {
        case 0, 1, 2:
            guard let field = reader.readUInt24() else { return nil }
            timestampField = field
            if fmt <= 1 {
                guard let length = reader.readUInt24(), let typeID = reader.readUInt8() else { return nil }
                stream.length = Int(length)
                stream.typeID = typeID
                if fmt == 0 {
                    guard let streamID = reader.readUInt32LE() else { return nil }
                    stream.streamID = streamID
                }
            }
            // RTMP §5.3.1.3 extended timestamp.
            stream.extended = field == ChunkEncoder.extendedTimestampMarker
            if stream.extended {
                guard let value = reader.readUInt32() else { return nil }
                timestampField = value
                stream.extendedValue = value
            }
            received = nil
            if fmt == 0 {
                stream.timestamp = timestampField
            } else {
                stream.timestamp = stream.timestamp &+ timestampField
            }
            stream.lastDelta = timestampField
        default:
            if stream.extended {
                // Flash and ffmpeg repeat the extended timestamp on fmt 3 chunks; some encoders do not. When the
                // next 4 bytes equal the value of the header, they are the repeated field.
                guard let peeked = reader.getUInt(at: reader.readerIndex, width: 4) else { return nil }
                if UInt32(truncatingIfNeeded: peeked) == stream.extendedValue {
                    reader.skip(4)
                }
            }
            if received == nil {
                stream.timestamp = stream.timestamp &+ stream.lastDelta
            }
        }

        let startsMessage = received == nil
        if startsMessage {
            guard stream.length <= limits.maximumMessageLength else {
                throw RTMPError.messageTooLarge(UInt32(stream.length), limit: limits.maximumMessageLength)
            }
        }
        let alreadyReceived = received ?? 0
        let chunkLength = min(Int(chunkSize), stream.length - alreadyReceived)
        guard let payload = reader.readSlice(chunkLength) else { return nil }

        // The chunk is complete: commit.
        // (The partials are looked up again only when this chunk stream had one: most messages fit in one chunk.)
        if startsMessage, pending != nil, let dropped = partials.removeValue(forKey: csid) {
            bufferedPayloadBytes -= dropped.count
        }
        streams[csid] = stream
        if chunkLength == stream.length - alreadyReceived {
            var body = startsMessage ? [] : partials.removeValue(forKey: csid) ?? []
            bufferedPayloadBytes -= body.count
            body.appendBytes(payload)
            let message = RTMPMessage(chunkStreamID: csid, timestamp: stream.timestamp, typeID: stream.typeID,
                                      streamID: stream.streamID, payload: body)
            return (message, reader.readerIndex)
        }
        if startsMessage && partials.count >= limits.maximumChunkStreamsInProgress {
            throw RTMPError.resourceLimitExceeded(
                "more than \(limits.maximumChunkStreamsInProgress) chunk streams with messages in progress")
        }
        guard bufferedPayloadBytes + chunkLength <= limits.maximumBufferedBytes else {
            throw RTMPError.resourceLimitExceeded("more than \(limits.maximumBufferedBytes) bytes of partial messages")
        }
        if startsMessage {
            var started: [UInt8] = []
            started.reserveCapacity(min(stream.length, Self.reservedPayloadCapacity))
            started.appendBytes(payload)
            partials[csid] = started
        } else {
            partials.modify(csid) { $0.appendBytes(payload) }
        }
        bufferedPayloadBytes += chunkLength
        return (nil, reader.readerIndex)
    }

    /// Applies Set Chunk Size (RTMP §5.4.1) and Abort Message (§5.4.2) from the peer.
    private mutating func applyControl(_ message: RTMPMessage) throws(RTMPError) {
        guard message.streamID == 0 || message.chunkStreamID == ChunkStreamID.control else { return }
        switch message.type {
        case .setChunkSize:
            guard case .setChunkSize(let size) = try ProtocolControlMessage(message) else { return }
            guard size >= 1, size <= limits.maximumChunkSize else {
                throw RTMPError.chunkSizeOutOfRange(size, limit: limits.maximumChunkSize)
            }
            chunkSize = size
        case .abort:
            guard case .abort(let csid) = try ProtocolControlMessage(message) else { return }
            if let dropped = partials.removeValue(forKey: csid) {
                bufferedPayloadBytes -= dropped.count
            }
        default:
            break
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends a slice of bytes with one copy (`append(contentsOf:)` on a slice was left generic, element by element,
    /// in a relay's profile).
    mutating func appendBytes(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}
