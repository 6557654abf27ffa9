import AMF
import RTMP

/// Bytes a broken or hostile RTMP peer sends, built by hand where our own encoder would refuse to make them.
enum HostileBytes {
    /// A Set Chunk Size (RTMP §5.4.1) announcing `size`.
    static func setChunkSize(_ size: UInt32) -> [UInt8] {
        [
            0x02,                    // fmt 0, chunk stream id 2
            0x00, 0x00, 0x00,        // timestamp 0
            0x00, 0x00, 0x04,        // message length 4
            0x01,                    // type 1: Set Chunk Size
            0x00, 0x00, 0x00, 0x00,  // message stream id 0
        ] + bigEndian(size)
    }

    /// The header of a message announcing 0xFFFFFF bytes (16 MiB - 1, the most the 24-bit field allows).
    static func hugeMessageHeader(typeID: UInt8) -> [UInt8] {
        [
            0x03,                    // fmt 0, chunk stream id 3
            0x00, 0x00, 0x00,        // timestamp 0
            0xFF, 0xFF, 0xFF,        // message length 16 777 215
            typeID,                  // message type
            0x00, 0x00, 0x00, 0x00,  // message stream id 0
        ]
    }

    /// The start of a `length`-byte AMF0 command message on chunk stream 3, and `sent` bytes of its payload.
    static func truncatedCommand(length: UInt32, sent: Int) -> [UInt8] {
        [
            0x03,                                // fmt 0, chunk stream id 3
            0x00, 0x00, 0x00,                    // timestamp 0
        ] + Array(bigEndian(length).dropFirst())  // message length (24 bits)
            + [
                0x14,                    // type 20: AMF0 command
                0x00, 0x00, 0x00, 0x00,  // message stream id 0
            ] + AMF0.encode([.string("_result"), .number(1)]) + [UInt8](repeating: 0x05, count: sent)
    }

    /// The first 128-byte chunk of a 1000-byte video message on each of `chunkStreams`: many messages in progress
    /// at once, none ever finished.
    static func partialMessages(chunkStreams: Range<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        for csid in chunkStreams {
            precondition(csid >= 2 && csid <= 63)
            bytes += [
                csid,                    // fmt 0, chunk stream id
                0x00, 0x00, 0x00,        // timestamp 0
                0x00, 0x03, 0xE8,        // message length 1000
                0x09,                    // type 9: video
                0x00, 0x00, 0x00, 0x00,  // message stream id 0
            ] + [UInt8](repeating: csid, count: 128)  // one chunk at the default chunk size of 128
        }
        return bytes
    }

    /// The payload of an AMF0 command whose command object nests `depth` objects.
    static func deeplyNestedCommand(name: String, transactionID: Double, depth: Int) -> [UInt8] {
        var payload = AMF0.encode([.string(name), .number(transactionID)])
        payload.reserveCapacity(payload.count + depth * 7 + 1)
        for _ in 0..<depth {
            payload += [0x03, 0x00, 0x01, 0x61]  // object marker, then a property named "a" (length 1)
        }
        payload.append(0x05)  // null at the bottom
        for _ in 0..<depth {
            payload += [0x00, 0x00, 0x09]  // empty name + object end marker
        }
        return payload
    }

    /// Messages of types these peers do not act on: unassigned ids, AMF3 data, shared objects, aggregates.
    static func unknownTypeMessages(chunkStreamID: UInt32, streamID: UInt32 = 0) -> [RTMPMessage] {
        [7, 10, 15, 16, 19, 22, 0x20, 0x7F, 0xFF].map { typeID in
            RTMPMessage(chunkStreamID: chunkStreamID, timestamp: 0, typeID: typeID, streamID: streamID,
                        payload: [UInt8](repeating: typeID, count: 40))
        }
    }

    /// A Ping Request (RTMP §7.1.7) whose header timestamp is `timestamp` and whose payload carries `id`.
    static func ping(id: UInt32, timestamp: UInt32, chunkStreamID: UInt32) -> RTMPMessage {
        RTMPMessage(chunkStreamID: chunkStreamID, timestamp: timestamp, type: .userControl, streamID: 0,
                    payload: UserControlEvent.pingRequest(timestamp: id).payload)
    }

    /// A fmt 2 chunk (RTMP §5.3.1.2.3) that repeats the previous message's length and type with a new timestamp
    /// delta: after a header at 0xFFFFFF00 a delta of 0x200 wraps the timestamp past 2^32.
    static func fmt2Chunk(chunkStreamID: UInt32, delta: UInt32, payload: [UInt8]) -> [UInt8] {
        precondition(chunkStreamID >= 2 && chunkStreamID <= 63)
        return [0x80 | UInt8(chunkStreamID)]  // fmt 2, chunk stream id
            + Array(bigEndian(delta).dropFirst())  // timestamp delta (24 bits)
            + payload
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }
}
