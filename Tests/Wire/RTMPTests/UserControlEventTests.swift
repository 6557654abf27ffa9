import Testing
@testable import RTMP

struct UserControlEventTests {
    @Test(arguments: [
        (UserControlEvent.streamBegin(streamID: 1), [UInt8(0x00), 0x00, 0x00, 0x00, 0x00, 0x01]),
        (.streamEOF(streamID: 2), [0x00, 0x01, 0x00, 0x00, 0x00, 0x02]),
        (.streamDry(streamID: 3), [0x00, 0x02, 0x00, 0x00, 0x00, 0x03]),
        (.setBufferLength(streamID: 1, milliseconds: 3000),
         [0x00, 0x03,                  // event 3
          0x00, 0x00, 0x00, 0x01,      // stream 1
          0x00, 0x00, 0x0B, 0xB8]),    // 3000 ms
        (.streamIsRecorded(streamID: 1), [0x00, 0x04, 0x00, 0x00, 0x00, 0x01]),
        (.pingRequest(timestamp: 0xDEAD_BEEF), [0x00, 0x06, 0xDE, 0xAD, 0xBE, 0xEF]),
        (.pingResponse(timestamp: 0xDEAD_BEEF), [0x00, 0x07, 0xDE, 0xAD, 0xBE, 0xEF]),
        (.unknown(eventType: 0x1F, data: [1, 2, 3]), [0x00, 0x1F, 0x01, 0x02, 0x03]),
    ] as [(UserControlEvent, [UInt8])])
    func encodesAndDecodes(event: UserControlEvent, payload: [UInt8]) throws {
        #expect(event.payload == payload)
        #expect(try UserControlEvent(payload: payload) == event)
    }

    @Test(arguments: [[UInt8](), [0x00], [0x00, 0x06, 0x01], [0x00, 0x03, 0, 0, 0, 1]])
    func truncatedEventsAreTypedErrors(payload: [UInt8]) {
        #expect { try UserControlEvent(payload: payload) } throws: { ($0 as? RTMPError)?.code == .malformedMessage }
    }
}
