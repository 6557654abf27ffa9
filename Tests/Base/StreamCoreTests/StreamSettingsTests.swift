import Foundation
import Testing
@testable import StreamCore

@Suite struct StreamSettingsTests {
    @Test func defaultsAreWhatAStreamerWouldPick() {
        let settings = StreamSettings()
        #expect(settings.quality == .p720)
        #expect(settings.fps == 30)
        #expect((2500...3500).contains(settings.videoBitrateKbps))
        #expect(settings.audioBitrateKbps == 128)
        #expect(settings.includeAppAudio)
        #expect(settings.adaptiveBitrate)
        #expect(!settings.pipEnabled)
        #expect(settings.pipCorner == .bottomRight)
        #expect(settings.pipScale == 0.25)
        #expect(settings.cameraPosition == .front)
        #expect(settings.audioInputID == nil)
    }

    @Test(arguments: [
        (StreamSettings.Quality.p480, 24, 1000), (.p480, 30, 1200), (.p480, 60, 1800),
        (.p720, 24, 2500), (.p720, 30, 3000), (.p720, 60, 4500),
        (.p1080, 24, 4166), (.p1080, 30, 5000), (.p1080, 60, 7500),
    ])
    func defaultBitrateFollowsQualityAndFrameRate(_ quality: StreamSettings.Quality, _ fps: Int, _ kbps: Int) {
        let settings = StreamSettings.defaults(for: quality, fps: fps)
        #expect(settings.quality == quality)
        #expect(settings.fps == fps)
        #expect(settings.videoBitrateKbps == kbps)
        #expect(StreamSettings.videoBitrateRangeKbps.contains(kbps))
    }

    @Test func qualitiesKnowTheirShortEdge() {
        #expect(StreamSettings.Quality.allCases.map(\.shortEdge) == [480, 720, 1080])
        #expect(StreamSettings.Quality(shortEdge: 1080) == .p1080)
        #expect(StreamSettings.Quality(shortEdge: 1440) == nil)
    }

    @Test(arguments: [(0, 24), (24, 24), (27, 24), (28, 30), (30, 30), (45, 30), (46, 60), (120, 60), (-5, 24)])
    func nearestFrameRate(_ fps: Int, _ expected: Int) {
        #expect(StreamSettings.FrameRate.nearest(to: fps).rawValue == expected)
    }

    @Test func changingQualityMovesADefaultBitrateButKeepsACustomOne() {
        var settings = StreamSettings()
        settings.changeQuality(to: .p1080)
        #expect(settings.videoBitrateKbps == 5000)
        settings.changeFrameRate(to: .fps60)
        #expect(settings.videoBitrateKbps == 7500)
        settings.videoBitrateKbps = 6000
        settings.changeQuality(to: .p480)
        #expect(settings.videoBitrateKbps == 6000)
        #expect(settings.quality == .p480)
    }

    @Test func clampBringsValuesIntoRangeWithAWarningEach() {
        var settings = StreamSettings()
        settings.videoBitrateKbps = 1_000_000
        settings.audioBitrateKbps = 1
        settings.pipScale = 0.9
        settings.audioInputID = ""
        let warnings = settings.clamp()
        #expect(settings.videoBitrateKbps == 20_000)
        #expect(settings.audioBitrateKbps == 32)
        #expect(settings.pipScale == 0.40)
        #expect(settings.audioInputID == nil)
        #expect(warnings.map(\.key) == ["videoBitrateKbps", "audioBitrateKbps", "pipScale", "audioInputID"])
        #expect(settings.clamp().isEmpty)
    }

    @Test func clampReplacesNonFiniteScale() {
        var settings = StreamSettings()
        settings.pipScale = .nan
        #expect(settings.clamp().count == 1)
        #expect(settings.pipScale == 0.25)
        settings.pipScale = -.infinity
        settings.clamp()
        #expect(settings.pipScale == 0.25)
    }

    @Test func codableRoundTrip() throws {
        var settings = StreamSettings.defaults(for: .p1080, fps: 60)
        settings.pipEnabled = true
        settings.pipCorner = .topLeft
        settings.pipScale = 0.33
        settings.cameraPosition = .back
        settings.audioInputID = "BT:00:11:22:33:44:55-hfp"
        settings.includeAppAudio = false
        settings.adaptiveBitrate = false
        let data = try JSONEncoder().encode(settings)
        #expect(try JSONDecoder().decode(StreamSettings.self, from: data) == settings)
        settings.audioSource = .system
        settings.publishProtocol = .whip
        let whip = try JSONDecoder().decode(StreamSettings.self, from: try JSONEncoder().encode(settings))
        #expect(whip == settings && whip.audioSource == .system && whip.publishProtocol == .whip)
    }

    /// The seed's microphone-or-system switch: app audio follows the choice, and turning app audio on or off keeps
    /// the microphone's part of it.
    @Test func theAudioChoiceAndAppAudioAgree() {
        var settings = StreamSettings()
        #expect(settings.audioSource == .both && settings.includeAppAudio && settings.capturesMicrophone)
        settings.audioSource = .system
        #expect(settings.includeAppAudio && !settings.capturesMicrophone)
        settings.includeAppAudio = false
        #expect(settings.audioSource == .microphone && settings.capturesMicrophone)
        settings.includeAppAudio = true
        #expect(settings.audioSource == .both)
    }

    @Test func encodedKeysAreStable() throws {
        let data = SettingsStore.encode(StreamSettings())
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["quality", "fps", "videoBitrateKbps", "audioBitrateKbps", "includeAppAudio",
                                     "adaptiveBitrate", "pipEnabled", "pipCorner", "pipScale", "cameraPosition",
                                     "audioSource", "publishProtocol"])
        #expect(object["audioSource"] as? String == "both")
        #expect(object["publishProtocol"] as? String == "rtmp")
        #expect(object["quality"] as? String == "720p")
        #expect(object["fps"] as? Int == 30)
    }
}
