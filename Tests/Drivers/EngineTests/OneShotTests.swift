import Engine
import Locking
import TestSupport
import Testing

/// The one-time event the engine's drivers wait on instead of polling.
///
/// The waiters run on a ``ManualTaskExecutor``: once `runUntilIdle()` returns they are parked inside `wait()`, so
/// each test takes the path where the event comes after the wait began (a sleep that ran short took the one where
/// it came before, and passed all the same).
struct OneShotTests {
    @Test func everyWaiterWakesWithTheFirstValue() async {
        let event = OneShot<Int>()
        let executor = ManualTaskExecutor()
        let started = Locked(0)
        let woken = Locked<[Int?]>([])
        let waiters = (0..<2).map { _ in
            Task(executorPreference: executor) {
                started.withLock { $0 += 1 }
                let value = await event.wait()
                woken.withLock { $0.append(value) }
            }
        }
        executor.runUntilIdle()
        #expect(started.withLock { $0 } == 2 && woken.withLock { $0 }.isEmpty,
                "both waiters must be parked before the event fires")
        #expect(event.fire(7))
        #expect(!event.fire(8))
        executor.runUntilIdle()
        #expect(woken.withLock { $0 } == [7, 7])
        #expect(await event.wait() == 7)
        for waiter in waiters { waiter.cancel() }
        executor.runUntilIdle()
    }

    @Test func aCancelledWaiterReturnsAtOnce() async {
        let event = OneShot<Void>()
        let executor = ManualTaskExecutor()
        let log = Locked<[String]>([])
        let waiter = Task(executorPreference: executor) {
            log.withLock { $0.append("waiting") }
            let value: Void? = await event.wait()
            log.withLock { $0.append(value == nil ? "nil" : "fired") }
        }
        executor.runUntilIdle()
        #expect(log.withLock { $0 } == ["waiting"], "the waiter must be parked before it is cancelled")
        waiter.cancel()
        executor.runUntilIdle()
        #expect(log.withLock { $0 } == ["waiting", "nil"], "a cancelled waiter returns nil at once")
        #expect(event.value == nil)
    }

    @Test func aTimedWaitEndsWhenTheEventFiresNotWhenTheTimerDoes() async {
        let event = OneShot<Void>()
        // The timer itself: nothing fires, so the wait lasts its whole bound.
        let start = ContinuousClock.now
        #expect(await event.wait(atMost: .milliseconds(30)) == false)
        #expect(start.duration(to: .now) >= .milliseconds(30))
        let executor = ManualTaskExecutor()
        let log = Locked<[String]>([])
        let waiter = Task(executorPreference: executor) {
            log.withLock { $0.append("waiting") }
            let fired = await event.wait(atMost: .seconds(30))
            log.withLock { $0.append(fired ? "fired" : "timer") }
        }
        executor.runUntilIdle()
        #expect(log.withLock { $0 } == ["waiting"], "the timed wait must be parked before the event fires")
        event.fire()
        executor.runUntilIdle()
        #expect(log.withLock { $0 } == ["waiting", "fired"], "the wait must end on the event, not on its 30 s timer")
        waiter.cancel()
        executor.runUntilIdle()
    }
}
