import Testing
@testable import RTMP

struct SharedMediaChunksTests {
    @Test func oneEncodingPerChunkSizeAndStreamWithATypeZeroHeader() throws {
        let body = [UInt8](0..<200)
        var chunks = SharedMediaChunks(MediaMessage(kind: .video, timestamp: 0x01_0203, streamID: 7, body: body))
        let first = try chunks.bytes(chunkSize: 128, streamID: 1)
        #expect(Array(first.prefix(12)) == [
            0x06,                     // fmt 0, csid 6 (video)
            0x01, 0x02, 0x03,         // absolute timestamp
            0x00, 0x00, 0xC8,         // length 200
            0x09,                     // type 9: video
            0x01, 0x00, 0x00, 0x00,   // the requested stream id 1, little-endian (not the message's 7)
        ])
        #expect(Array(first[12..<140]) == Array(body[0..<128]))
        #expect(first[140] == 0xC6)  // fmt 3 continuation, csid 6
        #expect(Array(first[141...]) == Array(body[128...]))

        let again = try chunks.bytes(chunkSize: 128, streamID: 1)
        #expect(again == first)
        let wider = try chunks.bytes(chunkSize: 4096, streamID: 1)
        #expect(wider.count == 12 + 200)
        let otherStream = try chunks.bytes(chunkSize: 128, streamID: 2)
        #expect(otherStream[8] == 0x02)
    }

    @Test func afterAStandaloneMessageTheNextHeaderIsRelativeToIt() throws {
        let message = RTMPMessage(chunkStreamID: 6, timestamp: 1000, type: .video, streamID: 1, payload: [1, 2, 3])
        var encoder = ChunkEncoder()
        _ = try encoder.encode(RTMPMessage(chunkStreamID: 6, timestamp: 10, type: .video, streamID: 1,
                                           payload: [9]))
        #expect(try ChunkEncoder.encodeStandalone(message, chunkSize: 128)[0] == 0x06)  // fmt 0
        encoder.noteStandalone(message)
        let next = RTMPMessage(chunkStreamID: 6, timestamp: 1040, type: .video, streamID: 1, payload: [4, 5, 6])
        #expect(try encoder.encode(next) == [
            0x86,                     // fmt 2: same length, type and stream as the standalone message
            0x00, 0x00, 0x28,         // delta 40 from its timestamp 1000 (not from 10)
            4, 5, 6,
        ])
    }

    @Test(arguments: [(UInt32(128), UInt32(0x01_0203)), (4096, 0x100_0000), (1, 0xFF_FFFF), (100, 0)])
    func afterDroppingTheBodyOtherEncodingsAreRecoveredFromTheFirst(chunkSize: UInt32, timestamp: UInt32) throws {
        let body = pseudoRandomBytes(1000, seed: 3)
        let media = MediaMessage(kind: .audio, timestamp: timestamp, streamID: 1, body: body)
        var chunks = SharedMediaChunks(media)
        chunks.dropBody()  // nothing encoded yet: the body stays
        #expect(chunks.heldByteCount == body.count)
        let first = try chunks.bytes(chunkSize: chunkSize, streamID: 1)
        chunks.dropBody()
        #expect(chunks.heldByteCount == first.count)
        #expect(chunks.media.body == body)
        #expect(chunks.bodyCount == body.count)
        for (size, stream) in [(chunkSize, UInt32(2)), (4096, 1), (60, 3)] {
            var fresh = SharedMediaChunks(media)
            let expected = try fresh.bytes(chunkSize: size, streamID: stream)
            #expect(try chunks.bytes(chunkSize: size, streamID: stream) == expected)
        }
        #expect(try chunks.bytes(chunkSize: chunkSize, streamID: 1) == first)
    }

    @Test func anEmptyBodySurvivesDropping() throws {
        var chunks = SharedMediaChunks(MediaMessage(kind: .data, timestamp: 7, streamID: 1, body: []))
        _ = try chunks.bytes(chunkSize: 128, streamID: 1)
        chunks.dropBody()
        #expect(chunks.media.body.isEmpty)
        #expect(try chunks.bytes(chunkSize: 128, streamID: 2).count == 12)
    }

    @Test func tooLargeABodyIsRefused() throws {
        var chunks = SharedMediaChunks(MediaMessage(kind: .video, timestamp: 0, streamID: 1,
                                                    body: [UInt8](repeating: 0, count: 0x100_0000)))
        #expect(throws: RTMPError.self) { try chunks.bytes(chunkSize: 4096, streamID: 1) }
    }
}
