import Foundation
import Testing
@testable import StreamCore

/// Lenient decoding of stored blobs, including hostile ones.
@Suite struct SettingsDecodingTests {
    private func decode(_ json: String) throws -> (StreamSettings, [SettingsWarning]) {
        try SettingsStore.decode(Data(json.utf8)).get()
    }

    @Test func emptyObjectGivesDefaultsWithoutWarnings() throws {
        let (settings, warnings) = try decode("{}")
        #expect(settings == StreamSettings())
        #expect(warnings.isEmpty)
    }

    @Test func unknownKeysAreIgnored() throws {
        let (settings, warnings) = try decode(#"{"fps": 60, "futureFeature": {"a": [1, 2]}, "streamKey": "x"}"#)
        #expect(settings.fps == 60)
        #expect(warnings.isEmpty)
    }

    @Test func missingKeysTakeDefaultsForTheStoredQuality() throws {
        let (settings, warnings) = try decode(#"{"quality": "1080p"}"#)
        #expect(settings == StreamSettings.defaults(for: .p1080, fps: 30))
        #expect(warnings.isEmpty)
    }

    @Test func nullTakesTheDefaultSilently() throws {
        let (settings, warnings) = try decode(#"{"fps": null, "audioInputID": null, "pipScale": null}"#)
        #expect(settings == StreamSettings())
        #expect(warnings.isEmpty)
    }

    /// Blobs written before the audio choice and the protocol load: app audio on means both, off the microphone;
    /// the protocol is RTMP. A choice that is not one of the names warns and keeps the default.
    @Test func blobsFromBeforeTheAudioChoiceAndProtocolStillLoad() throws {
        let old = """
            {"quality": "720p", "fps": 30, "videoBitrateKbps": 2500, "audioBitrateKbps": 128, "includeAppAudio": false,
             "adaptiveBitrate": true, "pipEnabled": true, "pipCorner": "topLeft", "pipScale": 0.3,
             "cameraPosition": "front", "audioInputID": "mic-1"}
            """
        let (settings, warnings) = try decode(old)
        #expect(warnings.isEmpty)
        #expect(settings.audioSource == .microphone && !settings.includeAppAudio)
        #expect(settings.publishProtocol == .rtmp)
        #expect(settings.videoBitrateKbps == 2500 && settings.pipEnabled && settings.audioInputID == "mic-1")
        #expect(try decode(#"{"includeAppAudio": true}"#).0.audioSource == .both)
        let (chosen, none) = try decode(#"{"includeAppAudio": true, "audioSource": "mic", "publishProtocol": "whip"}"#)
        #expect(none.isEmpty && chosen.audioSource == .microphone && chosen.publishProtocol == .whip)
        let (unknown, warned) = try decode(#"{"audioSource": "speakers", "publishProtocol": "srt"}"#)
        #expect(unknown.audioSource == .both && unknown.publishProtocol == .rtmp)
        #expect(Set(warned.map(\.key)) == ["audioSource", "publishProtocol"])
    }

    @Test func qualityMayBeStoredAsItsShortEdge() throws {
        #expect(try decode(#"{"quality": 480}"#).0.quality == .p480)
        #expect(try decode(#"{"quality": "720P"}"#).0.quality == .p720)
    }

    @Test func outOfRangeValuesAreClampedWithWarnings() throws {
        let (settings, warnings) = try decode("""
            {"videoBitrateKbps": 999999999, "audioBitrateKbps": -4, "pipScale": 7.5, "fps": 45}
            """)
        #expect(settings.videoBitrateKbps == 20_000)
        #expect(settings.audioBitrateKbps == 32)
        #expect(settings.pipScale == 0.40)
        #expect(settings.fps == 30)
        #expect(Set(warnings.map(\.key)) == ["videoBitrateKbps", "audioBitrateKbps", "pipScale", "fps"])
    }

    @Test func wrongTypesTakeDefaultsWithWarnings() throws {
        let (settings, warnings) = try decode("""
            {"quality": true, "fps": "sixty", "videoBitrateKbps": [1], "audioBitrateKbps": {"x": 1},
             "includeAppAudio": "yes", "adaptiveBitrate": 0, "pipEnabled": null, "pipCorner": "middle",
             "pipScale": "0.3", "cameraPosition": 1, "audioInputID": 42}
            """)
        #expect(settings == StreamSettings())
        #expect(warnings.count == 10)
    }

    @Test func nanLikeStringsTakeDefaultsWithWarnings() throws {
        // JSON has no NaN or infinity; these are what a hostile or buggy writer produces instead.
        let (settings, warnings) = try decode("""
            {"pipScale": "NaN", "videoBitrateKbps": "Infinity", "audioBitrateKbps": "-inf", "fps": "nan"}
            """)
        #expect(settings == StreamSettings())
        #expect(Set(warnings.map(\.key)) == ["pipScale", "videoBitrateKbps", "audioBitrateKbps", "fps"])
    }

    @Test(arguments: [(#"{"pipScale": 1e400}"#, "pipScale"), (#"{"fps": -1e400}"#, "fps"),
                      (#"{"videoBitrateKbps": 1e400}"#, "videoBitrateKbps")])
    func numbersOverflowingADoubleTakeDefaultsWithWarnings(_ json: String, _ key: String) throws {
        let (settings, warnings) = try decode(json)
        #expect(settings == StreamSettings())
        #expect(warnings.map(\.key) == [key])
    }

    @Test(arguments: [#"{"pipScale": NaN}"#, #"{"pipScale": Infinity}"#, #"{"fps": -Infinity}"#])
    func bareNaNLiteralsMakeTheBlobUndecodable(_ json: String) {
        // Not JSON at all: the store keeps such a blob aside.
        let result = SettingsStore.decode(Data(json.utf8))
        #expect(throws: SettingsStore.DecodeFailure.self) { try result.get() }
    }

    @Test func fractionalAndHugeNumbersAreRoundedAndSaturated() throws {
        let (settings, _) = try decode(#"{"videoBitrateKbps": 2999.6, "audioBitrateKbps": 1e300}"#)
        #expect(settings.videoBitrateKbps == 3000)
        #expect(settings.audioBitrateKbps == 320)
    }

    @Test func nestedJunkIsIgnored() throws {
        let junk = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let (settings, warnings) = try decode(#"{"junk": \#(junk), "fps": 24, "pipScale": {"a": {"b": [null]}}}"#)
        #expect(settings.fps == 24)
        #expect(warnings.map(\.key) == ["pipScale"])
    }

    @Test func unusableAudioInputIDsAreDropped() throws {
        let long = String(repeating: "a", count: 600)
        #expect(try decode(#"{"audioInputID": "\#(long)"}"#).0.audioInputID == nil)
        #expect(try decode(#"{"audioInputID": "a\u0000b"}"#).0.audioInputID == nil)
        #expect(try decode(#"{"audioInputID": "BuiltInMicrophoneDevice"}"#).0.audioInputID == "BuiltInMicrophoneDevice")
    }

    @Test func warningsNeverEchoStoredStrings() throws {
        let (_, warnings) = try decode(#"{"pipCorner": "HOSTILE-TEXT", "quality": "HOSTILE-TEXT"}"#)
        #expect(warnings.count == 2)
        #expect(!warnings.contains { $0.message.contains("HOSTILE") })
    }

    @Test(arguments: [
        "", "not json", "[]", "[1, 2]", "42", "\"string\"", "null", "{", #"{"fps": 30"#, "{} {}",
        String(repeating: "[", count: 100_000),
    ])
    func undecodableBlobsAreFailures(_ text: String) {
        let result = SettingsStore.decode(Data(text.utf8))
        #expect(throws: SettingsStore.DecodeFailure.self) { try result.get() }
    }

    @Test func invalidUTF8IsAFailure() {
        let result = SettingsStore.decode(Data([0x7B, 0xFF, 0xFE, 0x7D]))
        #expect(throws: SettingsStore.DecodeFailure.self) { try result.get() }
    }

    @Test func oversizedBlobIsAFailure() {
        let padding = String(repeating: " ", count: SettingsStore.maximumBlobSize)
        let result = SettingsStore.decode(Data(("{" + padding + "}").utf8))
        #expect(throws: SettingsStore.DecodeFailure.self) { try result.get() }
    }
}
