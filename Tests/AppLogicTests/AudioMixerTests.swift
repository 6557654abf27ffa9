import Testing
import AppLogic

@Suite struct AudioMixerTests {
    /// `frames` stereo frames of one value.
    private func constant(_ value: Float, frames: Int) -> [Float] {
        [Float](repeating: value, count: frames * 2)
    }

    @Test func aSingleSourcePassesStraightThrough() {
        var mixer = AudioMixer(sources: [.microphone])
        mixer.append([0.1, 0.2, 0.3, 0.4], from: .microphone)
        let result1 = mixer.takeMixed()
        #expect(result1 == [0.1, 0.2, 0.3, 0.4])
        #expect(mixer.takeMixed().isEmpty)
    }

    @Test func aSourceNotMixedIsIgnored() {
        var mixer = AudioMixer(sources: [.microphone])
        mixer.append(constant(0.5, frames: 10), from: .app)
        #expect(mixer.pendingFrames(of: .app) == 0)
        #expect(mixer.takeMixed().isEmpty)
    }

    @Test func overlappingFramesAreSummed() {
        var mixer = AudioMixer(sources: [.app, .microphone])
        mixer.append(constant(0.25, frames: 3), from: .app)
        mixer.append(constant(0.5, frames: 5), from: .microphone)
        let result2 = mixer.takeMixed()
        #expect(result2 == constant(0.75, frames: 3))
        #expect(mixer.pendingFrames(of: .microphone) == 2)
        mixer.append(constant(0.125, frames: 2), from: .app)
        let result3 = mixer.takeMixed()
        #expect(result3 == constant(0.625, frames: 2))
    }

    @Test func sumsAreClipped() {
        var mixer = AudioMixer(sources: [.app, .microphone])
        mixer.append([0.9, -0.9], from: .app)
        mixer.append([0.9, -0.9], from: .microphone)
        let result4 = mixer.takeMixed()
        #expect(result4 == [1, -1])
    }

    @Test func aLeadBeyondTheLagBoundGoesOutAlone() {
        var mixer = AudioMixer(sources: [.app, .microphone], maximumLagFrames: 4)
        mixer.append(constant(0.5, frames: 10), from: .app)
        let result5 = mixer.takeMixed()
        #expect(result5 == constant(0.5, frames: 6))
        #expect(mixer.pendingFrames(of: .app) == 4)
        mixer.append(constant(0.25, frames: 4), from: .microphone)
        let result6 = mixer.takeMixed()
        #expect(result6 == constant(0.75, frames: 4))
    }

    @Test func aPartialSampleFrameIsDropped() {
        var mixer = AudioMixer(sources: [.microphone])
        mixer.append([0.1, 0.2, 0.3], from: .microphone)
        let result7 = mixer.takeMixed()
        #expect(result7 == [0.1, 0.2])
    }

    @Test func pendingNeverExceedsTheBoundWhenOneSourceIsSilent() {
        var mixer = AudioMixer(sources: [.app, .microphone])
        for _ in 0..<100 {
            mixer.append(constant(0.1, frames: 1024), from: .app)
            _ = mixer.takeMixed()
            #expect(mixer.pendingFrames(of: .app) <= mixer.maximumLagFrames)
        }
    }
}
