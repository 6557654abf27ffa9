import AMF
import Testing
@testable import RTMP

struct CommandMessageTests {
    @Test func encodesCreateStream() {
        let command = CommandMessage(name: "createStream", transactionID: 4)
        #expect(command.payload == [
            0x02, 0x00, 0x0C] + Array("createStream".utf8) + [   // string "createStream"
            0x00, 0x40, 0x10, 0, 0, 0, 0, 0, 0,                   // number 4.0
            0x05,                                                 // null command object
        ])
        let message = command.message()
        #expect(message.typeID == 20)
        #expect(message.chunkStreamID == 3)
    }

    @Test func decodesOnStatusInfo() throws {
        let info: AMF0Object = ["level": .string("error"), "code": .string("NetStream.Publish.BadName"),
                                "description": .string("Already publishing")]
        let bytes = AMF0.encode([.string("onStatus"), .number(0), .null, .object(info)])
        let command = try CommandMessage(payload: bytes)
        #expect(command.name == "onStatus")
        #expect(command.transactionID == 0)
        #expect(command.commandObject == .null)
        #expect(command.info == StatusInfo(level: "error", code: "NetStream.Publish.BadName",
                                           description: "Already publishing"))
        #expect(command.info?.isError == true)
    }

    @Test func roundTripsArguments() throws {
        let command = CommandMessage(name: "publish", transactionID: 5, arguments: [.string("name"), .string("live")])
        #expect(try CommandMessage(payload: command.payload) == command)
    }

    @Test func decodesAMF3CommandWithLeadingZero() throws {
        let command = CommandMessage(name: "connect", transactionID: 1, commandObject: .object(["app": .string("a")]))
        #expect(try CommandMessage(payload: [0x00] + command.payload, isAMF3: true) == command)
    }

    @Test(arguments: [[UInt8](), [0x00, 0x40, 0x10, 0, 0, 0, 0, 0, 0], [0x02, 0x00, 0x10, 0x61]])
    func rejectsNonCommands(payload: [UInt8]) {
        #expect { try CommandMessage(payload: payload) } throws: { ($0 as? RTMPError)?.code == .malformedMessage }
    }
}
