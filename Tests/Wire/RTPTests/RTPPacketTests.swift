import Testing
@testable import RTP

struct RTPPacketTests {
    /// RFC 3550 §5.1's fixed header, field by field.
    static let vector: [UInt8] = [
        0x80,                    // V=2, P=0, X=0, CC=0
        0xE6,                    // M=1, PT=102
        0x12, 0x34,              // sequence number 0x1234
        0x00, 0x01, 0x5F, 0x90,  // timestamp 90 000
        0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
        0x65, 0x88,              // payload
    ]

    @Test func encodesTheFixedHeader() throws {
        let packet = RTPPacket(payloadType: 102, marker: true, sequenceNumber: 0x1234, timestamp: 90000,
                               ssrc: 0xDEAD_BEEF, payload: [0x65, 0x88])
        #expect(packet.encoded == Self.vector)
        #expect(try RTPPacket(decoding: Self.vector) == packet)
    }

    @Test func skipsCSRCsExtensionsAndPadding() throws {
        let bytes: [UInt8] = [
            0xB1,                    // V=2, P=1, X=1, CC=1
            0x6F,                    // M=0, PT=111
            0x00, 0x07,              // sequence 7
            0x00, 0x00, 0x03, 0xC0,  // timestamp 960
            0x00, 0x00, 0x00, 0x2A,  // SSRC 42
            0x00, 0x00, 0x00, 0x01,  // CSRC
            0xBE, 0xDE, 0x00, 0x01,  // one-byte header extension, one word
            0x10, 0xFF, 0x00, 0x00,
            0xFC, 0xAA,              // payload
            0x00, 0x00, 0x03,        // three bytes of padding, the last one counting them
        ]
        let packet = try RTPPacket(decoding: bytes)
        #expect(packet.payload == [0xFC, 0xAA])
        #expect(packet.payloadType == 111)
        #expect(packet.marker == false)
        #expect(packet.ssrc == 42)
        for length in 0..<12 {
            #expect(throws: RTPError.self) { try RTPPacket(decoding: Array(bytes.prefix(length))) }
        }
        #expect(throws: RTPError.self) { try RTPPacket(decoding: Array(bytes.prefix(18))) }
    }

    @Test func tellsRTCPFromRTPOnAMuxedPort() {
        #expect(RTPPacket.isRTCP([0x80, 200]))
        #expect(RTPPacket.isRTCP([0x81, 205]))
        #expect(!RTPPacket.isRTCP(Self.vector))
        #expect(!RTPPacket.isRTCP([0x80, 0x6F]))
    }
}
