import Testing
import AppLogic

@Suite struct FrameRateGateTests {
    /// Feeds frames at `inputRate` for one second and counts the kept ones.
    private func kept(target: Int, inputRate: Double, start: Double = 1000) -> Int {
        var gate = FrameRateGate(framesPerSecond: target)
        var count = 0
        for index in 0..<Int(inputRate) where gate.shouldKeep(atSeconds: start + Double(index) / inputRate) {
            count += 1
        }
        return count
    }

    @Test(arguments: [
        // (target fps, input fps, kept in one second)
        (30, 60.0, 30),
        (24, 60.0, 24),
        (60, 60.0, 60),
        (30, 30.0, 30),
        (60, 30.0, 30),
        (30, 120.0, 30),
    ])
    func keepsAtMostTheTargetRate(_ target: Int, _ input: Double, _ expected: Int) {
        #expect(kept(target: target, inputRate: input) == expected)
    }

    @Test func jitterWithinTenPercentIsKept() {
        var gate = FrameRateGate(framesPerSecond: 30)
        let result1 = gate.shouldKeep(atSeconds: 0)
        #expect(result1)
        let result2 = gate.shouldKeep(atSeconds: 1.0 / 30 - 0.002)   // 2 ms early, under the 3.3 ms tolerance
        #expect(result2)
        let result3 = gate.shouldKeep(atSeconds: 2.0 / 30 - 0.01)   // 10 ms early
        #expect(!result3)
    }

    @Test func aLongGapRestartsTheSlotsWithoutABurst() {
        var gate = FrameRateGate(framesPerSecond: 30)
        let result4 = gate.shouldKeep(atSeconds: 0)
        #expect(result4)
        let result5 = gate.shouldKeep(atSeconds: 5)          // a static screen: ReplayKit sent nothing for 5 s
        #expect(result5)
        let result6 = gate.shouldKeep(atSeconds: 5.001)     // no catch-up burst
        #expect(!result6)
        let result7 = gate.shouldKeep(atSeconds: 5 + 1.0 / 30)
        #expect(result7)
    }

    @Test func nonFiniteTimesAreDropped() {
        var gate = FrameRateGate(framesPerSecond: 30)
        let result8 = gate.shouldKeep(atSeconds: .nan)
        #expect(!result8)
        let result9 = gate.shouldKeep(atSeconds: .infinity)
        #expect(!result9)
        let result10 = gate.shouldKeep(atSeconds: 0)
        #expect(result10)
    }

    @Test func aZeroRateIsTreatedAsOne() {
        #expect(FrameRateGate(framesPerSecond: 0).framesPerSecond == 1)
    }
}
