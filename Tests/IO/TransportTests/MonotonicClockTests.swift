import Glibc
import Locking
import Testing
@testable import Transport

struct MonotonicClockTests {
    /// `epoll_wait` gets whole milliseconds rounded up, so that a timer never fires early; 0 once due.
    @Test func millisecondsUntilADeadlineRoundUp() {
        let now: Int64 = 5_000_000_000
        #expect(MonotonicClock.milliseconds(until: now, from: now) == 0)
        #expect(MonotonicClock.milliseconds(until: now - 1, from: now) == 0)
        #expect(MonotonicClock.milliseconds(until: now + 1, from: now) == 1)
        #expect(MonotonicClock.milliseconds(until: now + 1_000_000, from: now) == 1)
        #expect(MonotonicClock.milliseconds(until: now + 1_000_001, from: now) == 2)
        #expect(MonotonicClock.milliseconds(until: .max, from: now) == .max)
        #expect(MonotonicClock.milliseconds(until: .max, from: .min) == .max)
    }

    /// Deadlines count nanoseconds from the reading given; a negative delay is due at once, a huge one saturates.
    @Test func deadlinesAfterADelay() {
        let now: Int64 = 5_000_000_000
        #expect(MonotonicClock.deadline(after: .milliseconds(1500), from: now) == now + 1_500_000_000)
        #expect(MonotonicClock.deadline(after: .nanoseconds(7), from: now) == now + 7)
        #expect(MonotonicClock.deadline(after: .zero, from: now) == now)
        #expect(MonotonicClock.deadline(after: .seconds(-3), from: now) == now)
        #expect(MonotonicClock.deadline(after: .seconds(Int64.max), from: now) == .max)
        #expect(MonotonicClock.deadline(after: .seconds(10_000_000_000), from: now) == .max)
    }

    /// It moves forward with the real time.
    @Test func followsTheRealTime() {
        let start = MonotonicClock.nanoseconds
        // Real time passing is what is tested: a clock that stood still would read less than the 20 ms slept.
        usleep(20_000)
        let elapsed = MonotonicClock.nanoseconds - start
        #expect(elapsed >= 20_000_000)
        #expect(elapsed < 20_000_000_000)
    }
}
