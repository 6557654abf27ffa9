import AMF
import Testing
@testable import FLV

@Suite struct FLVMetadataTests {
    /// onMetaData with width 320 and stereo true.
    static let small: [UInt8] = [
        0x02, 0x00, 0x0A,                                            // AMF0 string, length 10
        0x6F, 0x6E, 0x4D, 0x65, 0x74, 0x61, 0x44, 0x61, 0x74, 0x61,  // "onMetaData"
        0x08, 0x00, 0x00, 0x00, 0x02,                                // ECMA array, 2 entries
        0x00, 0x05, 0x77, 0x69, 0x64, 0x74, 0x68,                    //   key "width"
        0x00, 0x40, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,        //   number 320
        0x00, 0x06, 0x73, 0x74, 0x65, 0x72, 0x65, 0x6F,              //   key "stereo"
        0x01, 0x01,                                                  //   boolean true
        0x00, 0x00, 0x09,                                            // object end
    ]

    @Test func encodesOnlyTheSetProperties() throws {
        let metadata = FLVMetadata(width: 320, stereo: true)
        #expect(metadata.encode() == Self.small)
        #expect(try FLVMetadata(parsing: Self.small) == metadata)
    }

    @Test func fullRoundTrip() throws {
        let metadata = FLVMetadata(
            duration: 0, width: 1280, height: 720, videoDataRate: 2500, frameRate: 29.97,
            videoCodecID: FLVMetadata.avcVideoCodecID, audioDataRate: 128, audioSampleRate: 48000,
            audioSampleSize: 16, stereo: true, audioCodecID: FLVMetadata.aacAudioCodecID, encoder: "Stream"
        )
        let body = metadata.encode()
        #expect(try FLVMetadata(parsing: body) == metadata)
        let values = try AMF0.decodeAll(body)
        #expect(values.first == .string("onMetaData"))
        let keys = values.last?.objectValue?.properties.map(\.key)
        #expect(keys == ["duration", "width", "height", "videodatarate", "framerate", "videocodecid",
                         "audiodatarate", "audiosamplerate", "audiosamplesize", "stereo", "audiocodecid",
                         "encoder"])
    }

    @Test func parsesSetDataFrameAndPlainObjectAndIgnoresUnknownOrMistypedKeys() throws {
        let body = AMF0.encode([
            .string("@setDataFrame"),
            .string("onMetaData"),
            .object(["height": .number(240), "width": .string("wide"), "fileSize": .number(1), "encoder": .null]),
        ])
        #expect(try FLVMetadata(parsing: body) == FLVMetadata(height: 240))
        #expect(FLVMetadata(width: 2).encode(setDataFrame: true).prefix(16) == [
            0x02, 0x00, 0x0D,                                      // AMF0 string, length 13
            0x40, 0x73, 0x65, 0x74, 0x44, 0x61, 0x74, 0x61, 0x46,  // "@setDataF
            0x72, 0x61, 0x6D, 0x65,                                //  rame"
        ])
    }

    @Test func rejectsOtherScriptDataAndCorruptAMF() {
        let cases: [[UInt8]] = [
            AMF0.encode([.string("onCuePoint"), .ecmaArray([:])]),  // a different handler
            AMF0.encode([.string("onMetaData")]),                    // no properties
            AMF0.encode([.string("onMetaData"), .number(1)]),        // properties not an object
            AMF0.encode([.number(1)]),                               // not a handler name
            Array(Self.small.dropLast(3)),                           // object end missing
            [],                                                      // empty
        ]
        for body in cases {
            let error = #expect(throws: FLVError.self) { try FLVMetadata(parsing: body) }
            #expect(error?.code == .invalidMetadata)
        }
    }
}
