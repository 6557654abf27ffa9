import Testing
import AppLogic

@Suite struct SendBudgetTests {
    @Test func theBoundIsOneSecondOfTheStreamWithAFloor() {
        #expect(SendBudget(videoBitrateKbps: 3000, audioBitrateKbps: 128).limitBytes == 391_000)
        #expect(SendBudget(limitBytes: 10).limitBytes == 65_536)
    }

    @Test func withinTheBoundEverythingIsSent() {
        var budget = SendBudget(limitBytes: 100_000)
        let result1 = budget.admit(.header, bytes: 100)
        #expect(result1 == .send)
        let result2 = budget.admit(.video(isKeyframe: true), bytes: 50_000)
        #expect(result2 == .send)
        let result3 = budget.admit(.audio, bytes: 400)
        #expect(result3 == .send)
        let result4 = budget.admit(.video(isKeyframe: false), bytes: 10_000)
        #expect(result4 == .send)
        #expect(budget.inFlightBytes == 60_500)
        budget.sent(bytes: 60_500)
        #expect(budget.inFlightBytes == 0)
    }

    @Test func aDroppedFrameDropsEveryNonKeyframeUntilAKeyframe() {
        var budget = SendBudget(limitBytes: 100_000)
        let result5 = budget.admit(.video(isKeyframe: true), bytes: 95_000)
        #expect(result5 == .send)
        let result6 = budget.admit(.video(isKeyframe: false), bytes: 10_000)
        #expect(result6 == .drop(requestKeyframe: true))
        budget.sent(bytes: 95_000)
        // Room again, but the next frames reference the dropped one.
        let result7 = budget.admit(.video(isKeyframe: false), bytes: 10_000)
        #expect(result7 == .drop(requestKeyframe: false))
        #expect(budget.waitingForKeyframe)
        let result8 = budget.admit(.audio, bytes: 400)
        #expect(result8 == .send)
        let result9 = budget.admit(.video(isKeyframe: true), bytes: 50_000)
        #expect(result9 == .send)
        #expect(!budget.waitingForKeyframe)
        let result10 = budget.admit(.video(isKeyframe: false), bytes: 10_000)
        #expect(result10 == .send)
        #expect(budget.droppedVideoFrames == 2)
    }

    @Test func aKeyframeThatDoesNotFitIsDroppedAndVideoWaits() {
        var budget = SendBudget(limitBytes: 100_000)
        let result11 = budget.admit(.audio, bytes: 90_000)
        #expect(result11 == .send)
        let result12 = budget.admit(.video(isKeyframe: true), bytes: 50_000)
        #expect(result12 == .drop(requestKeyframe: false))
        #expect(budget.waitingForKeyframe)
    }

    @Test func audioGoesUntilTwiceTheBound() {
        var budget = SendBudget(limitBytes: 100_000)
        let result13 = budget.admit(.video(isKeyframe: true), bytes: 100_000)
        #expect(result13 == .send)
        let result14 = budget.admit(.audio, bytes: 99_000)
        #expect(result14 == .send)
        let result15 = budget.admit(.audio, bytes: 2_000)
        #expect(result15 == .drop(requestKeyframe: false))
        #expect(budget.droppedAudioFrames == 1)
    }

    @Test func sentNeverGoesNegative() {
        var budget = SendBudget(limitBytes: 100_000)
        budget.sent(bytes: 5)
        #expect(budget.inFlightBytes == 0)
    }
}
