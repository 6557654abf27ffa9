import Testing
@testable import RTMP

/// A chunk byte vector and the messages it decodes to.
struct ChunkVector: Sendable, CustomStringConvertible {
    var description: String
    var bytes: [UInt8]
    var messages: [RTMPMessage]
}

private func message(_ csid: UInt32, _ timestamp: UInt32, _ type: UInt8, _ stream: UInt32, _ payload: [UInt8])
    -> RTMPMessage {
    RTMPMessage(chunkStreamID: csid, timestamp: timestamp, typeID: type, streamID: stream, payload: payload)
}

private let payload300 = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
private let payload200 = [UInt8](repeating: 0x5A, count: 200)

/// The vector every decoder vector is merged with: an audio message on chunk stream 10.
private let followingVector = ChunkVector(
    description: "following",
    bytes: [
        0x0A,                     // fmt 0, csid 10
        0x00, 0x00, 0x07,         // timestamp 7
        0x00, 0x00, 0x01,         // length 1
        0x08,                     // type 8: audio
        0x01, 0x00, 0x00, 0x00,   // message stream id 1 (little-endian)
        0xAF,                     // payload
    ],
    messages: [message(10, 7, 8, 1, [0xAF])])

private let decoderVectors: [ChunkVector] = [
    ChunkVector(description: "fmt 0, 1, 2, 3 on one chunk stream", bytes: [
        0x03,                     // fmt 0, csid 3
        0x00, 0x00, 0x64,         // timestamp 100
        0x00, 0x00, 0x02,         // length 2
        0x14,                     // type 20
        0x00, 0x00, 0x00, 0x00,   // stream 0
        0x01, 0x02,               // payload
        0x43,                     // fmt 1, csid 3
        0x00, 0x00, 0x0A,         // delta 10
        0x00, 0x00, 0x01,         // length 1
        0x12,                     // type 18
        0x03,                     // payload
        0x83,                     // fmt 2, csid 3
        0x00, 0x00, 0x05,         // delta 5
        0x04,                     // payload (length 1 from before)
        0xC3,                     // fmt 3, csid 3: delta 5 again
        0x05,                     // payload
    ], messages: [
        message(3, 100, 20, 0, [1, 2]), message(3, 110, 18, 0, [3]),
        message(3, 115, 18, 0, [4]), message(3, 120, 18, 0, [5]),
    ]),
    ChunkVector(description: "fmt 3 after fmt 0 repeats the fmt 0 timestamp as delta (RTMP §5.3.1.2.4)", bytes: [
        0x04,                     // fmt 0, csid 4
        0x00, 0x00, 0x14,         // timestamp 20
        0x00, 0x00, 0x01,         // length 1
        0x08,                     // type 8
        0x01, 0x00, 0x00, 0x00,   // stream 1
        0x11,                     // payload
        0xC4,                     // fmt 3, csid 4: new message, delta = 20
        0x22,                     // payload
    ], messages: [message(4, 20, 8, 1, [0x11]), message(4, 40, 8, 1, [0x22])]),
    ChunkVector(description: "multi-chunk message", bytes: [
        0x06,                     // fmt 0, csid 6
        0x00, 0x00, 0x00,         // timestamp 0
        0x00, 0x01, 0x2C,         // length 300
        0x09,                     // type 9: video
        0x01, 0x00, 0x00, 0x00,   // stream 1
    ] + payload300[0..<128] + [0xC6] + payload300[128..<256] + [0xC6] + payload300[256...],
    messages: [message(6, 0, 9, 1, payload300)]),
    ChunkVector(description: "2- and 3-byte basic headers", bytes: [
        0x00, 0x00,               // fmt 0, csid 64 (2-byte form)
        0x00, 0x00, 0x01,         // timestamp 1
        0x00, 0x00, 0x01,         // length 1
        0x14,                     // type 20
        0x00, 0x00, 0x00, 0x00,   // stream 0
        0xAA,
        0x00, 0xFF,               // fmt 0, csid 319
        0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00, 0x00, 0xBB,
        0x01, 0x00, 0x01,         // fmt 0, csid 320 (3-byte form: low byte, high byte)
        0x00, 0x00, 0x03, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00, 0x00, 0xCC,
        0x01, 0xFF, 0xFF,         // fmt 0, csid 65599
        0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00, 0x00, 0xDD,
        0x3F,                     // fmt 0, csid 63 (largest 1-byte form)
        0x00, 0x00, 0x05, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00, 0x00, 0xEE,
    ], messages: [
        message(64, 1, 20, 0, [0xAA]), message(319, 2, 20, 0, [0xBB]), message(320, 3, 20, 0, [0xCC]),
        message(65599, 4, 20, 0, [0xDD]), message(63, 5, 20, 0, [0xEE]),
    ]),
    ChunkVector(description: "extended timestamp repeated on continuation (Flash, ffmpeg)", bytes: [
        0x03,                     // fmt 0, csid 3
        0xFF, 0xFF, 0xFF,         // timestamp: extended
        0x00, 0x00, 0xC8,         // length 200
        0x09,                     // type 9
        0x01, 0x00, 0x00, 0x00,   // stream 1
        0x01, 0x02, 0x03, 0x04,   // extended timestamp 0x01020304
    ] + payload200[0..<128] + [
        0xC3,                     // fmt 3 continuation
        0x01, 0x02, 0x03, 0x04,   // extended timestamp repeated
    ] + payload200[128...], messages: [message(3, 0x0102_0304, 9, 1, payload200)]),
    ChunkVector(description: "extended timestamp not repeated on continuation", bytes: [
        0x03,                     // fmt 0, csid 3
        0xFF, 0xFF, 0xFF,         // timestamp: extended
        0x00, 0x00, 0xC8,         // length 200
        0x09,                     // type 9
        0x01, 0x00, 0x00, 0x00,   // stream 1
        0x01, 0x02, 0x03, 0x04,   // extended timestamp 0x01020304
    ] + payload200[0..<128] + [
        0xC3,                     // fmt 3 continuation, no extended field
    ] + payload200[128...], messages: [message(3, 0x0102_0304, 9, 1, payload200)]),
    ChunkVector(description: "interleaved chunk streams", bytes: [
        0x06,                     // fmt 0, csid 6: video, 200 bytes
        0x00, 0x00, 0x21, 0x00, 0x00, 0xC8, 0x09, 0x01, 0x00, 0x00, 0x00,
    ] + payload200[0..<128] + [
        0x04,                     // fmt 0, csid 4: audio, 3 bytes, in the middle of the video message
        0x00, 0x00, 0x20, 0x00, 0x00, 0x03, 0x08, 0x01, 0x00, 0x00, 0x00,
        0xAF, 0x01, 0x02,
        0xC6,                     // fmt 3, csid 6: the rest of the video message
    ] + payload200[128...], messages: [message(4, 32, 8, 1, [0xAF, 1, 2]), message(6, 33, 9, 1, payload200)]),
    ChunkVector(description: "Set Chunk Size mid-stream", bytes: [
        0x02,                     // fmt 0, csid 2
        0x00, 0x00, 0x00,         // timestamp 0
        0x00, 0x00, 0x04,         // length 4
        0x01,                     // type 1: Set Chunk Size
        0x00, 0x00, 0x00, 0x00,   // stream 0
        0x00, 0x00, 0x01, 0x00,   // chunk size 256
        0x06,                     // fmt 0, csid 6: 300 bytes in chunks of 256 now
        0x00, 0x00, 0x00, 0x00, 0x01, 0x2C, 0x09, 0x01, 0x00, 0x00, 0x00,
    ] + payload300[0..<256] + [0xC6] + payload300[256...], messages: [
        message(2, 0, 1, 0, [0, 0, 1, 0]), message(6, 0, 9, 1, payload300),
    ]),
    ChunkVector(description: "Abort discards the partial message", bytes: [
        0x06,                     // fmt 0, csid 6: video, 200 bytes, only the first chunk is sent
        0x00, 0x00, 0x00, 0x00, 0x00, 0xC8, 0x09, 0x01, 0x00, 0x00, 0x00,
    ] + payload200[0..<128] + [
        0x02,                     // fmt 0, csid 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
        0x02,                     // type 2: Abort Message
        0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x06,   // chunk stream 6
        0xC6,                     // fmt 3, csid 6: a new message with the same header (length 200, delta 0)
    ] + payload200[0..<128] + [0xC6] + payload200[128...], messages: [
        message(2, 0, 2, 0, [0, 0, 0, 6]), message(6, 0, 9, 1, payload200),
    ]),
    ChunkVector(description: "timestamp wraps past 2^32", bytes: [
        0x04,                     // fmt 0, csid 4
        0xFF, 0xFF, 0xFF,         // extended
        0x00, 0x00, 0x01, 0x08, 0x01, 0x00, 0x00, 0x00,
        0xFF, 0xFF, 0xFF, 0xF0,   // extended timestamp 2^32 - 16
        0x01,
        0x84,                     // fmt 2, csid 4
        0x00, 0x00, 0x20,         // delta 32
        0x02,
    ], messages: [message(4, 0xFFFF_FFF0, 8, 1, [1]), message(4, 0x10, 8, 1, [2])]),
    ChunkVector(description: "unknown message type passes through", bytes: [
        0x03,                     // fmt 0, csid 3
        0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
        0x30,                     // type 48: not defined
        0x00, 0x00, 0x00, 0x00,
        0xDE, 0xAD,
    ], messages: [message(3, 0, 0x30, 0, [0xDE, 0xAD])]),
]

struct ChunkDecoderTests {
    @Test(arguments: decoderVectors, Feeding.allCases)
    func decodesVector(vector: ChunkVector, feeding: Feeding) throws {
        var decoder = ChunkDecoder()
        let messages = try decodeAll(feeding.pieces(vector.bytes, next: followingVector.bytes), decoder: &decoder)
        #expect(messages == vector.messages + followingVector.messages)
        #expect(decoder.unconsumedByteCount == 0)
    }

    /// The same vectors through the entry for bytes a transport lends (its raw read buffer).
    @Test(arguments: decoderVectors, Feeding.allCases)
    func decodesVectorLentAsRawBytes(vector: ChunkVector, feeding: Feeding) throws {
        var decoder = ChunkDecoder()
        var messages: [RTMPMessage] = []
        for piece in feeding.pieces(vector.bytes, next: followingVector.bytes) {
            piece.withUnsafeBytes { decoder.append($0) }
            while let message = try decoder.next() { messages.append(message) }
        }
        #expect(messages == vector.messages + followingVector.messages)
        #expect(decoder.unconsumedByteCount == 0)
    }

    @Test func setChunkSizeIsApplied() throws {
        var decoder = ChunkDecoder()
        decoder.append([0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00])
        _ = try decoder.next()
        #expect(decoder.chunkSize == 4096)
    }

    @Test func roundTripsThroughTheEncoder() throws {
        var encoder = ChunkEncoder()
        var bytes: [UInt8] = []
        var expected: [RTMPMessage] = []
        var timestamp: UInt32 = UInt32.max - 1000
        for index in 0..<60 {
            let csid: UInt32 = [3, 4, 6, 64, 400][index % 5]
            timestamp = timestamp &+ UInt32(index % 3 == 0 ? 33 : 0x0100_0000)
            let payload = pseudoRandomBytes(index * 37 % 500, seed: UInt32(index))
            let message = message(csid, timestamp, index % 2 == 0 ? 9 : 8, 1, payload)
            if index == 20 {
                bytes += try encoder.encode(ProtocolControlMessage.setChunkSize(1000).message())
                expected.append(ProtocolControlMessage.setChunkSize(1000).message())
                encoder.setChunkSize(1000)
            }
            bytes += try encoder.encode(message)
            expected.append(message)
        }
        for feeding in Feeding.allCases {
            var decoder = ChunkDecoder()
            #expect(try decodeAll(feeding.pieces(bytes, next: []), decoder: &decoder) == expected)
        }
    }

    @Test func largeMessageInSmallChunks() throws {
        // 1 MiB in 128-byte chunks: 8192 chunks. Appending a chunk must not copy what was received before
        // (that would be quadratic, a cheap way for a peer to burn our CPU).
        var encoder = ChunkEncoder()
        let big = RTMPMessage(chunkStreamID: 6, timestamp: 0, type: .video, streamID: 1,
                              payload: pseudoRandomBytes(1 << 20, seed: 9))
        var decoder = ChunkDecoder()
        #expect(try decodeAll([encoder.encode(big)], decoder: &decoder) == [big])
    }

    // MARK: - Limits and malformed input

    private func expectError(_ bytes: [UInt8], limits: ChunkDecoderLimits = .default, _ code: RTMPError.Code) {
        var decoder = ChunkDecoder(limits: limits)
        #expect { _ = try decodeAll([bytes], decoder: &decoder) } throws: { ($0 as? RTMPError)?.code == code }
    }

    @Test func messageLengthOver16MiBIsRejectedByDefault() {
        expectError([
            0x06,                     // fmt 0, csid 6
            0x00, 0x00, 0x00,
            0xFF, 0xFF, 0xFF,         // length 16 MiB - 1
            0x09, 0x01, 0x00, 0x00, 0x00,
            0x00,
        ], .messageTooLarge)
    }

    @Test(arguments: [
        [UInt8(0x7F), 0xFF, 0xFF, 0xFF],   // 0x7FFFFFFF: legal per spec, more than we buffer
        [0x00, 0x00, 0x00, 0x00],          // 0: not a chunk size
    ])
    func hugeOrZeroChunkSizeIsRejected(size: [UInt8]) {
        expectError([0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0] + size, .chunkSizeOutOfRange)
    }

    @Test func tooManyChunkStreamsInProgress() {
        var bytes: [UInt8] = []
        for csid in UInt8(3)...UInt8(6) {
            // fmt 0, a 200-byte message of which only the first 128-byte chunk is sent.
            bytes += [csid, 0, 0, 0, 0, 0, 0xC8, 0x09, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 128)
        }
        expectError(bytes, limits: ChunkDecoderLimits(maximumChunkStreamsInProgress: 3), .resourceLimitExceeded)
    }

    @Test func tooManyBufferedBytes() {
        var bytes: [UInt8] = []
        for csid in UInt8(3)...UInt8(5) {
            bytes += [csid, 0, 0, 0, 0, 0, 0xC8, 0x09, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 128)
        }
        expectError(bytes, limits: ChunkDecoderLimits(maximumBufferedBytes: 300), .resourceLimitExceeded)
    }

    @Test func tooManyChunkStreams() {
        var bytes: [UInt8] = []
        for csid in UInt8(3)...UInt8(10) {
            bytes += [csid, 0, 0, 0, 0, 0, 1, 0x09, 1, 0, 0, 0, 0xAA]
        }
        expectError(bytes, limits: ChunkDecoderLimits(maximumChunkStreams: 5), .resourceLimitExceeded)
    }

    @Test(arguments: [UInt8(0x43), 0x83, 0xC3])
    func headerWithoutPreviousFmt0IsMalformed(first: UInt8) {
        expectError([first, 0, 0, 0, 0, 0, 1, 0x09, 0xAA, 0xAA, 0xAA, 0xAA], .malformedChunk)
    }

    @Test func partialMessageMemoryIsBoundedByBytesReceived() throws {
        var decoder = ChunkDecoder()
        // An 8 MiB message announced, but only the first chunk sent: nothing is allocated up front.
        decoder.append([0x06, 0, 0, 0, 0x80, 0x00, 0x00, 0x09, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 128))
        #expect(try decoder.next() == nil)
        #expect(decoder.unconsumedByteCount == 0)
    }
}
