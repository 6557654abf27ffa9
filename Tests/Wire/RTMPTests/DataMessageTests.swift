import AMF
import Testing
@testable import RTMP

struct DataMessageTests {
    @Test func setDataFrameLayout() throws {
        let metadata: AMF0Object = ["width": .number(1280)]
        let payload = DataMessage.setDataFrame(metadata).payload
        #expect(payload == [0x02, 0x00, 0x0D] + Array("@setDataFrame".utf8)  // string "@setDataFrame"
            + [0x02, 0x00, 0x0A] + Array("onMetaData".utf8)                  // string "onMetaData"
            + [0x08, 0x00, 0x00, 0x00, 0x01]                                 // ECMA array, 1 entry
            + [0x00, 0x05] + Array("width".utf8)                             // key "width"
            + [0x00, 0x40, 0x94, 0x00, 0, 0, 0, 0, 0]                        // 1280.0
            + [0x00, 0x00, 0x09])                                            // object end
        #expect(try DataMessage(payload: payload).metadata == metadata)
    }

    @Test func onMetaDataWithoutSetDataFrame() throws {
        let metadata: AMF0Object = ["duration": .number(0)]
        #expect(try DataMessage(payload: DataMessage.onMetaData(metadata).payload).metadata == metadata)
    }

    @Test func otherDataHasNoMetadata() {
        #expect(DataMessage(values: [.string("|RtmpSampleAccess"), .boolean(true), .boolean(true)]).metadata == nil)
    }

    @Test func malformedBodyIsATypedError() {
        #expect { try DataMessage(payload: [0x02, 0x00, 0x05, 0x61]) } throws: {
            ($0 as? RTMPError)?.code == .malformedMessage
        }
    }
}
