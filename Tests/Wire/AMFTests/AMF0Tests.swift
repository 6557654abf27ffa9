import ByteIO
import Testing
@testable import AMF

@Suite struct AMF0Tests {
    /// The connect command ffmpeg and OBS send, as bytes (AMF0 spec §2; RTMP spec §7.2.1.1).
    static let connectCommand: [UInt8] = [
        0x02, 0x00, 0x07,                                       // string, length 7
        0x63, 0x6F, 0x6E, 0x6E, 0x65, 0x63, 0x74,               // "connect"
        0x00, 0x3F, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,   // number 1.0 (transaction id)
        0x03,                                                   // object
        0x00, 0x03, 0x61, 0x70, 0x70,                           //   key "app"
        0x02, 0x00, 0x04, 0x6C, 0x69, 0x76, 0x65,               //   string "live"
        0x00, 0x0E,                                             //   key length 14
        0x6F, 0x62, 0x6A, 0x65, 0x63, 0x74, 0x45, 0x6E,         //   "objectEn
        0x63, 0x6F, 0x64, 0x69, 0x6E, 0x67,                     //    coding"
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,   //   number 0.0
        0x00, 0x00, 0x09,                                       // object end
        0x05,                                                   // null
        0x01, 0x01,                                             // boolean true
    ]

    @Test func decodesConnectCommand() throws {
        let values = try AMF0.decodeAll(Self.connectCommand)
        #expect(values == [
            .string("connect"),
            .number(1),
            .object(["app": .string("live"), "objectEncoding": .number(0)]),
            .null,
            .boolean(true),
        ])
        #expect(values[2]["app"]?.stringValue == "live")
    }

    @Test func encodesConnectCommandToTheSameBytes() {
        let bytes = AMF0.encode([
            .string("connect"),
            .number(1),
            .object(["app": .string("live"), "objectEncoding": .number(0)]),
            .null,
            .boolean(true),
        ])
        #expect(bytes == Self.connectCommand)
    }

    @Test func ecmaArrayCountIsOnlyAHint() throws {
        let bytes: [UInt8] = [
            0x08, 0x00, 0x00, 0x00, 0x07,             // ECMA array claiming 7 entries
            0x00, 0x05, 0x77, 0x69, 0x64, 0x74, 0x68,  // key "width"
            0x00, 0x40, 0x94, 0x00, 0, 0, 0, 0, 0,     // number 1280
            0x00, 0x00, 0x09,                          // object end after one entry
        ]
        #expect(try AMF0.decodeAll(bytes) == [.ecmaArray(["width": .number(1280)])])
    }

    @Test func strictArrayDateUndefinedAndLongString() throws {
        let long = String(repeating: "x", count: 70_000)
        let values: [AMF0Value] = [
            .strictArray([.number(1), .string("two"), .null]),
            .date(millisecondsSince1970: 1_700_000_000_000, timeZoneMinutes: 0),
            .undefined,
            .string(long),
        ]
        let bytes = AMF0.encode(values)
        // The long string switches to the long-string marker with a 32-bit length.
        let longStart = bytes.count - 70_000 - 5
        #expect(Array(bytes[longStart..<longStart + 5]) == [0x0C, 0x00, 0x01, 0x11, 0x70])
        #expect(try AMF0.decodeAll(bytes) == values)
    }

    @Test func referencesResolveInOrderObjectsBegin() throws {
        let bytes: [UInt8] = [
            0x0A, 0x00, 0x00, 0x00, 0x02,  // strict array of 2 (reference #0)
            0x03,                          //   object (reference #1)
            0x00, 0x01, 0x61,              //     key "a"
            0x01, 0x00,                    //     false
            0x00, 0x00, 0x09,              //   object end
            0x07, 0x00, 0x01,              //   reference #1
        ]
        let inner = AMF0Value.object(["a": .boolean(false)])
        #expect(try AMF0.decodeAll(bytes) == [.strictArray([inner, inner])])
    }

    @Test func cyclicReferenceIsRejected() {
        let bytes: [UInt8] = [
            0x03,              // object (reference #0)
            0x00, 0x01, 0x61,  //   key "a"
            0x07, 0x00, 0x00,  //   reference #0: itself
            0x00, 0x00, 0x09,
        ]
        #expect(throws: AMF0Error.self) { try AMF0.decodeAll(bytes) }
    }

    @Test func typedObjectDecodesAsObject() throws {
        let bytes: [UInt8] = [
            0x10, 0x00, 0x01, 0x43,      // typed object, class "C"
            0x00, 0x01, 0x6B, 0x05,      //   "k": null
            0x00, 0x00, 0x09,
        ]
        #expect(try AMF0.decodeAll(bytes) == [.object(["k": .null])])
    }

    @Test(arguments: 1..<connectCommand.count)
    func everyTruncationThrows(length: Int) {
        let prefix = Array(Self.connectCommand.prefix(length))
        // A cut that falls exactly between two values is a shorter valid payload, not an error.
        let boundaries: Set<Int> = [10, 19, 60, 61]
        if boundaries.contains(length) {
            #expect(throws: Never.self) { try AMF0.decodeAll(prefix) }
        } else {
            #expect(throws: AMF0Error.self) { try AMF0.decodeAll(prefix) }
        }
    }

    @Test func deepNestingIsBounded() {
        // 10 000 nested strict arrays of one element each: must throw, not overflow the stack.
        var bytes: [UInt8] = []
        for _ in 0..<10_000 { bytes += [0x0A, 0x00, 0x00, 0x00, 0x01] }
        bytes.append(0x05)
        #expect(throws: AMF0Error.self) { try AMF0.decodeAll(bytes) }
    }

    @Test func hugeCountsDoNotAllocate() {
        let strict: [UInt8] = [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x05]      // strict array claiming 4 G elements
        let long: [UInt8] = [0x0C, 0xFF, 0xFF, 0xFF, 0xFF, 0x61]        // long string claiming 4 GiB
        #expect(throws: AMF0Error.self) { try AMF0.decodeAll(strict) }
        #expect(throws: AMF0Error.self) { try AMF0.decodeAll(long) }
    }

    @Test(arguments: [0x04, 0x0E, 0x11, 0x09, 0x12, 0xFF] as [UInt8])
    func unsupportedAndUnknownMarkersThrow(marker: UInt8) {
        #expect(throws: AMF0Error.self) { try AMF0.decodeAll([marker, 0, 0, 0, 0, 0, 0, 0, 0]) }
    }

    @Test func errorNamesOffsetAndProblem() throws {
        let error = try #require(throws: AMF0Error.self) { try AMF0.decodeAll([0x05, 0x42]) }
        #expect(error.description == "malformed AMF0 at byte 1: unknown type marker 0x42")
    }

    @Test func objectSubscriptEditsInPlace() {
        var object: AMF0Object = ["a": .number(1), "b": .number(2)]
        object["a"] = .string("x")
        object["c"] = .null
        object["b"] = nil
        #expect(object.properties.map(\.key) == ["a", "c"])
        #expect(object["a"] == .string("x"))
    }
}
