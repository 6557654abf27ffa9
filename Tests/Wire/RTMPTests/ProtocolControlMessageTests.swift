import Testing
@testable import RTMP

struct ProtocolControlMessageTests {
    @Test(arguments: [
        (ProtocolControlMessage.setChunkSize(4096), UInt8(1), [UInt8(0x00), 0x00, 0x10, 0x00]),  // size 4096
        (.abort(chunkStreamID: 6), 2, [0x00, 0x00, 0x00, 0x06]),                                // csid 6
        (.acknowledgement(sequenceNumber: 0x0102_0304), 3, [0x01, 0x02, 0x03, 0x04]),           // bytes so far
        (.windowAcknowledgementSize(2_500_000), 5, [0x00, 0x26, 0x25, 0xA0]),                   // 2 500 000
        (.setPeerBandwidth(windowSize: 2_500_000, limitType: .dynamic), 6,
         [0x00, 0x26, 0x25, 0xA0,                                                               // window
          0x02]),                                                                               // limit: dynamic
        (.userControl(.streamBegin(streamID: 1)), 4, [0x00, 0x00,                               // event 0
                                                      0x00, 0x00, 0x00, 0x01]),                 // stream 1
    ] as [(ProtocolControlMessage, UInt8, [UInt8])])
    func encodesAndDecodes(control: ProtocolControlMessage, type: UInt8, payload: [UInt8]) throws {
        let message = control.message()
        #expect(message.typeID == type)
        #expect(message.chunkStreamID == 2)
        #expect(message.streamID == 0)
        #expect(message.payload == payload)
        #expect(try ProtocolControlMessage(message) == control)
    }

    @Test func setChunkSizeIgnoresTheReservedTopBit() throws {
        let message = RTMPMessage(chunkStreamID: 2, timestamp: 0, type: .setChunkSize, streamID: 0,
                                  payload: [0x80, 0x00, 0x10, 0x00])
        #expect(try ProtocolControlMessage(message) == .setChunkSize(4096))
    }

    @Test func shortBodyIsATypedError() {
        let message = RTMPMessage(chunkStreamID: 2, timestamp: 0, type: .acknowledgement, streamID: 0, payload: [1, 2])
        #expect { try ProtocolControlMessage(message) } throws: { ($0 as? RTMPError)?.code == .malformedMessage }
    }

    @Test func otherTypesAreNotControlMessages() throws {
        let message = RTMPMessage(chunkStreamID: 4, timestamp: 0, type: .audio, streamID: 1, payload: [0xAF])
        #expect(try ProtocolControlMessage(message) == nil)
    }
}
