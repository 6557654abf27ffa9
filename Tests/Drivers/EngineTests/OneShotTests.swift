import Engine
import Testing

/// The one-time event the engine's drivers wait on instead of polling.
struct OneShotTests {
    @Test func everyWaiterWakesWithTheFirstValue() async {
        let event = OneShot<Int>()
        async let first = event.wait()
        async let second = event.wait()
        try? await Task.sleep(for: .milliseconds(20))
        #expect(event.fire(7))
        #expect(!event.fire(8))
        let values = await [first, second]
        #expect(values == [7, 7])
        #expect(await event.wait() == 7)
    }

    @Test func aCancelledWaiterReturnsAtOnce() async {
        let event = OneShot<Void>()
        let waiter = Task { await event.wait() }
        try? await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(await waiter.value == nil)
        #expect(event.value == nil)
    }

    @Test func aTimedWaitEndsWhenTheEventFiresNotWhenTheTimerDoes() async {
        let event = OneShot<Void>()
        let start = ContinuousClock.now
        #expect(await event.wait(atMost: .milliseconds(30)) == false)
        #expect(start.duration(to: .now) >= .milliseconds(30))
        Task {
            try? await Task.sleep(for: .milliseconds(20))
            event.fire()
        }
        let waited = ContinuousClock.now
        #expect(await event.wait(atMost: .seconds(30)) == true)
        #expect(waited.duration(to: .now) < .seconds(5))
    }
}
