import Testing
@testable import RTMP

struct ChunkEncoderTests {
    private func command(_ timestamp: UInt32, _ payload: [UInt8], csid: UInt32 = 3) -> RTMPMessage {
        RTMPMessage(chunkStreamID: csid, timestamp: timestamp, type: .amf0Command, streamID: 0, payload: payload)
    }

    @Test func picksFmt0Then1Then2Then3() throws {
        var encoder = ChunkEncoder()
        #expect(try encoder.encode(command(0, [1, 2, 3, 4, 5])) == [
            0x03,                     // fmt 0, csid 3
            0x00, 0x00, 0x00,         // timestamp 0
            0x00, 0x00, 0x05,         // message length 5
            0x14,                     // type 20: AMF0 command
            0x00, 0x00, 0x00, 0x00,   // message stream id 0 (little-endian)
            1, 2, 3, 4, 5,            // payload
        ])
        #expect(try encoder.encode(command(10, [6, 7, 8])) == [
            0x43,                     // fmt 1, csid 3: length changed
            0x00, 0x00, 0x0A,         // timestamp delta 10
            0x00, 0x00, 0x03,         // message length 3
            0x14,                     // type 20
            6, 7, 8,
        ])
        #expect(try encoder.encode(command(30, [9, 9, 9])) == [
            0x83,                     // fmt 2, csid 3: only the delta changed
            0x00, 0x00, 0x14,         // timestamp delta 20
            9, 9, 9,
        ])
        #expect(try encoder.encode(command(50, [1, 1, 1])) == [
            0xC3,                     // fmt 3, csid 3: same delta 20, length, type, stream
            1, 1, 1,
        ])
    }

    @Test func fmt0WhenStreamChangesOrTimeGoesBack() throws {
        var encoder = ChunkEncoder()
        _ = try encoder.encode(command(100, [1]))
        #expect(try encoder.encode(command(50, [1]))[0] == 0x03)    // timestamp went backwards: fmt 0
        var other = command(60, [1])
        other.streamID = 1
        #expect(try encoder.encode(other)[0] == 0x03)               // new message stream id: fmt 0
    }

    @Test func neverUsesFmt3RightAfterFmt0() throws {
        var encoder = ChunkEncoder()
        _ = try encoder.encode(command(0, [1]))
        #expect(try encoder.encode(command(0, [1])) == [0x83, 0x00, 0x00, 0x00, 1])  // fmt 2 delta 0, not fmt 3
    }

    @Test func splitsAtChunkSizeWithType3Continuations() throws {
        var encoder = ChunkEncoder()
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = try encoder.encode(command(0, payload))
        let expected: [UInt8] = [0x03, 0, 0, 0, 0x00, 0x01, 0x2C, 0x14, 0, 0, 0, 0]  // fmt 0, length 300
            + payload[0..<128] + [0xC3]                                              // fmt 3 continuation
            + payload[128..<256] + [0xC3]
            + payload[256...]
        #expect(bytes == expected)
    }

    @Test func honoursOutgoingChunkSize() throws {
        var encoder = ChunkEncoder()
        encoder.setChunkSize(4096)
        let bytes = try encoder.encode(command(0, [UInt8](repeating: 1, count: 4096)))
        #expect(bytes.count == 12 + 4096)                       // one chunk
    }

    @Test(arguments: [
        (UInt32(2), [UInt8(0x02)]),                             // 1-byte form
        (UInt32(63), [UInt8(0x3F)]),
        (UInt32(64), [UInt8(0x00), 0x00]),                      // 2-byte form: id - 64
        (UInt32(319), [UInt8(0x00), 0xFF]),
        (UInt32(320), [UInt8(0x01), 0x00, 0x01]),               // 3-byte form: (id - 64) low byte, high byte
        (UInt32(65599), [UInt8(0x01), 0xFF, 0xFF]),
    ] as [(UInt32, [UInt8])])
    func basicHeaderForms(csid: UInt32, header: [UInt8]) throws {
        var encoder = ChunkEncoder()
        let bytes = try encoder.encode(command(0, [0xAB], csid: csid))
        #expect(Array(bytes.prefix(header.count)) == header)
        #expect(bytes.count == header.count + 11 + 1)
    }

    @Test func extendedTimestampIsRepeatedOnContinuations() throws {
        var encoder = ChunkEncoder()
        let payload = [UInt8](repeating: 7, count: 200)
        let bytes = try encoder.encode(command(0x0100_0000, payload))
        let expected: [UInt8] = [
            0x03,                     // fmt 0, csid 3
            0xFF, 0xFF, 0xFF,         // timestamp: see extended field
            0x00, 0x00, 0xC8,         // length 200
            0x14,                     // type 20
            0x00, 0x00, 0x00, 0x00,   // stream 0
            0x01, 0x00, 0x00, 0x00,   // extended timestamp 0x01000000
        ] + payload[0..<128] + [
            0xC3,                     // fmt 3 continuation
            0x01, 0x00, 0x00, 0x00,   // extended timestamp repeated
        ] + payload[128...]
        #expect(bytes == expected)
    }

    @Test func timestampWrapDoesNotTrap() throws {
        var encoder = ChunkEncoder()
        _ = try encoder.encode(command(UInt32.max - 5, [1]))
        let bytes = try encoder.encode(command(4, [1]))               // wrapped past 2^32: sent as fmt 0
        #expect(bytes == [0x03, 0, 0, 4, 0, 0, 1, 0x14, 0, 0, 0, 0, 1])
    }

    @Test func aPayloadOver16MiBIsAThrownErrorAndChangesNothing() throws {
        var encoder = ChunkEncoder()
        _ = try encoder.encode(command(0, [1]))
        // RTMP §5.3.1.2.2: the message length is 24 bits; 16 MiB is one byte too many (an oversized keyframe).
        let tooLarge = command(40, [UInt8](repeating: 0, count: ChunkEncoder.maximumMessageLength + 1))
        #expect {
            try encoder.encode(tooLarge)
        } throws: { error in
            (error as? RTMPError)?.code == .messageTooLarge
        }
        // The next message is encoded as if the oversized one had never been offered: fmt 2, delta 20 from 0.
        #expect(try encoder.encode(command(20, [1])) == [0x83, 0x00, 0x00, 0x14, 1])
        // The largest legal payload still goes.
        let largest = try encoder.encode(command(60, [UInt8](repeating: 0, count: ChunkEncoder.maximumMessageLength)))
        #expect(largest.count > ChunkEncoder.maximumMessageLength)
    }
}
