import Testing
import AppLogic

@Suite struct BitrateAdapterTests {
    @Test func startsAtTheChosenBitrate() {
        let adapter = BitrateAdapter(targetKbps: 3000)
        #expect(adapter.currentKbps == 3000)
        #expect(adapter.minimumKbps == 300)
    }

    @Test func congestionStepsDownOncePerHold() {
        var adapter = BitrateAdapter(targetKbps: 3000)
        let first = adapter.congestion(atSeconds: 10)
        let burst = adapter.congestion(atSeconds: 10.5)
        let later = adapter.congestion(atSeconds: 12)
        #expect(first == 2250)
        #expect(burst == nil)
        #expect(later == 1687)
    }

    @Test func neverBelowTheFloor() {
        var adapter = BitrateAdapter(targetKbps: 400)
        var seconds = 0.0
        for _ in 0..<10 {
            _ = adapter.congestion(atSeconds: seconds)
            seconds += 3
        }
        #expect(adapter.currentKbps == 300)
        let again = adapter.congestion(atSeconds: seconds)
        #expect(again == nil)
    }

    @Test func recoversAfterQuietTimeUpToTheTarget() {
        var adapter = BitrateAdapter(targetKbps: 1000)
        _ = adapter.congestion(atSeconds: 0)                 // 750
        let tooSoon = adapter.tick(atSeconds: 4)
        #expect(tooSoon == nil)
        var seconds = 5.0
        var steps: [Int] = []
        while adapter.currentKbps < 1000, seconds < 100 {
            if let raised = adapter.tick(atSeconds: seconds) { steps.append(raised) }
            seconds += 1
        }
        #expect(steps == [825, 907, 997, 1000])
        let atTarget = adapter.tick(atSeconds: seconds + 10)
        #expect(atTarget == nil)
    }

    @Test func aDropDuringRecoveryRestartsTheQuietTime() {
        var adapter = BitrateAdapter(targetKbps: 1000)
        _ = adapter.congestion(atSeconds: 0)
        _ = adapter.congestion(atSeconds: 1)                 // within the hold: no change, but counts as congestion
        let blocked = adapter.tick(atSeconds: 5.5)
        let allowed = adapter.tick(atSeconds: 6)
        #expect(blocked == nil)
        #expect(allowed == 825)
    }

    @Test func aTargetBelowTheFloorBecomesTheFloor() {
        let adapter = BitrateAdapter(targetKbps: 100)
        #expect(adapter.minimumKbps == 100)
        #expect(adapter.currentKbps == 100)
    }
}
