import Testing
import AppLogic
import StreamCore

@Suite struct SampleRoutingTests {
    typealias Route = SampleRouting.Route

    @Test(arguments: [
        // (include app audio, facecam active, needs rotation, kind, expected route)
        (true, false, false, SampleBufferKind.video, Route.passthrough),
        (true, true, false, .video, .composite),
        (false, false, true, .video, .composite),
        (true, true, true, .video, .composite),
        (true, false, false, .audioApp, .mix(.app)),
        (false, false, false, .audioApp, .drop(.appAudioOff)),
        (true, false, false, .audioMic, .mix(.microphone)),
        (false, true, false, .audioMic, .mix(.microphone)),
    ])
    func runningRoutes(_ appAudio: Bool, _ facecam: Bool, _ rotation: Bool, _ kind: SampleBufferKind,
                       _ expected: Route) {
        let routing = SampleRouting(includeAppAudio: appAudio, facecamActive: facecam, needsRotation: rotation)
        #expect(routing.route(kind) == expected)
    }

    @Test(arguments: SampleBufferKind.allCases)
    func pausedAndFinishedDropEverything(_ kind: SampleBufferKind) {
        for facecam in [true, false] {
            #expect(SampleRouting(includeAppAudio: true, facecamActive: facecam, phase: .paused).route(kind)
                    == .drop(.paused))
            #expect(SampleRouting(includeAppAudio: true, facecamActive: facecam, phase: .finished).route(kind)
                    == .drop(.finished))
        }
    }

    @Test func mixedSourcesFollowTheAppAudioSetting() {
        #expect(SampleRouting(includeAppAudio: true).mixedSources == [.app, .microphone])
        #expect(SampleRouting(includeAppAudio: false).mixedSources == [.microphone])
    }

    /// The seed's switch with the microphone off: the system audio alone, microphone buffers dropped.
    @Test func systemAudioAloneDropsTheMicrophone() {
        var settings = StreamSettings()
        settings.audioSource = .system
        let routing = SampleRouting(includeAppAudio: settings.includeAppAudio,
                                    includeMicrophone: settings.capturesMicrophone)
        #expect(routing.route(.audioMic) == .drop(.microphoneOff))
        #expect(routing.route(.audioApp) == .mix(.app))
        #expect(routing.mixerInputs == [.app] && routing.mixerInput(of: .app) == 0)
        #expect(routing.mixerInput(of: .microphone) == nil)
    }

    @Test func theMicrophoneIsTheMixersFirstInputAndAppAudioTheSecondWhenOn() {
        let both = SampleRouting(includeAppAudio: true)
        #expect(both.mixerInputs == [.microphone, .app])
        #expect(both.mixerInput(of: .microphone) == 0 && both.mixerInput(of: .app) == 1)
        let microphone = SampleRouting(includeAppAudio: false)
        #expect(microphone.mixerInputs == [.microphone])
        #expect(microphone.mixerInput(of: .app) == nil)
        #expect(Set(both.mixerInputs) == both.mixedSources && Set(microphone.mixerInputs) == microphone.mixedSources)
    }
}
