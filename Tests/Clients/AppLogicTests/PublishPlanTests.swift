import AppLogic
import Foundation
import StreamCore
import Testing

/// The extension's choice between RTMP and WHIP, from the settings' protocol and the saved URL.
@Suite struct PublishPlanTests {
    static let rtmp = StreamCredentials(url: IngestURL(scheme: .rtmps, host: "live.restream.io", app: "live"),
                                        streamKey: "live_123")
    static let whip = StreamCredentials(url: IngestURL(scheme: .https, host: "whip.example.com", app: "live/whip"),
                                        streamKey: "bearer-456")

    private func settings(_ choice: StreamSettings.PublishProtocol) -> StreamSettings {
        var settings = StreamSettings()
        settings.publishProtocol = choice
        return settings
    }

    @Test func theProtocolAndTheURLMustAgree() {
        #expect(PublishPlan.decide(settings: settings(.rtmp), credentials: Self.rtmp, webRTCAvailable: false)
                == .rtmp(Self.rtmp))
        #expect(PublishPlan.decide(settings: settings(.whip), credentials: Self.whip, webRTCAvailable: true)
                == .whip(Self.whip))
        #expect(PublishPlan.decide(settings: settings(.whip), credentials: Self.rtmp, webRTCAvailable: true)
                == .refused(.protocolMismatch(.whip)))
        #expect(PublishPlan.decide(settings: settings(.rtmp), credentials: Self.whip, webRTCAvailable: true)
                == .refused(.protocolMismatch(.rtmp)))
    }

    @Test func nothingSavedOrNoWebRTCInTheBuildRefusesWithAReason() {
        #expect(PublishPlan.decide(settings: settings(.whip), credentials: nil, webRTCAvailable: true)
                == .refused(.missingCredentials))
        let plan = PublishPlan.decide(settings: settings(.whip), credentials: Self.whip, webRTCAvailable: false)
        #expect(plan == .refused(.webRTCUnavailable))
        if case .refused(let failure) = plan {
            let text = failure.message(url: Self.whip.url, streamKey: Self.whip.streamKey)
            #expect(text.contains("Choose RTMP") && !text.contains(Self.whip.streamKey))
        }
    }

    /// Old settings (no protocol saved) publish over RTMP as before.
    @Test func settingsFromBeforeTheProtocolPublishOverRTMP() throws {
        let old = try SettingsStore.decode(Data(#"{"quality": "720p", "includeAppAudio": true}"#.utf8)).get().0
        #expect(PublishPlan.decide(settings: old, credentials: Self.rtmp, webRTCAvailable: false) == .rtmp(Self.rtmp))
    }
}
