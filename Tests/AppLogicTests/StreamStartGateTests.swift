import Testing
import AppLogic

@Suite struct StreamStartGateTests {
    @Test func nothingGoesBeforeThePublishIsAccepted() {
        var gate = StreamStartGate()
        let audio = gate.admit(.audio, videoHeaderAvailable: true)
        let key = gate.admit(.video(isKeyframe: true), videoHeaderAvailable: true)
        #expect(audio == .init(before: [], send: false))
        #expect(key == .init(before: [], send: false))
        #expect(!gate.isLive)
    }

    @Test func headersThenAKeyframeThenEverything() {
        var gate = StreamStartGate()
        let steps = gate.published(videoHeaderAvailable: true)
        #expect(steps == [.metadata, .audioHeader, .videoHeader, .requestKeyframe])
        let inter = gate.admit(.video(isKeyframe: false), videoHeaderAvailable: true)
        #expect(inter == .init(before: [], send: false))
        let audio = gate.admit(.audio, videoHeaderAvailable: true)
        #expect(audio == .init(before: [], send: true))
        let key = gate.admit(.video(isKeyframe: true), videoHeaderAvailable: true)
        #expect(key == .init(before: [], send: true))
        let next = gate.admit(.video(isKeyframe: false), videoHeaderAvailable: true)
        #expect(next == .init(before: [], send: true))
    }

    @Test func theVideoHeaderFollowsWhenTheEncoderKnowsIt() {
        var gate = StreamStartGate()
        let steps = gate.published(videoHeaderAvailable: false)
        #expect(steps == [.metadata, .audioHeader, .requestKeyframe])
        let early = gate.admit(.video(isKeyframe: true), videoHeaderAvailable: false)
        #expect(early == .init(before: [], send: false))
        let key = gate.admit(.video(isKeyframe: true), videoHeaderAvailable: true)
        #expect(key == .init(before: [.videoHeader], send: true))
    }

    @Test func aPublishIsAnnouncedOnce() {
        var gate = StreamStartGate()
        _ = gate.published(videoHeaderAvailable: true)
        let again = gate.published(videoHeaderAvailable: true)
        #expect(again.isEmpty)
    }
}
