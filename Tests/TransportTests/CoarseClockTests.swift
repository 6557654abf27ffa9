import Glibc
import Testing
@testable import Transport

struct CoarseClockTests {
    /// The clock ticks at the kernel's resolution (a few milliseconds), not finer than a microsecond.
    @Test func theResolutionIsTheKernelsTick() {
        #expect(CoarseClock.resolution >= 1_000)
        #expect(CoarseClock.resolution <= 20_000_000)
    }

    /// Readings lag the real time by about a tick, so a plain difference can exceed the real interval by a tick; the
    /// elapsed time the idle timeout uses takes a tick off. Under load the kernel can update the clock late, so a
    /// reading may lag by more than one tick: the guarantee kept is "never a whole tick over the real interval" (an
    /// idle timeout of seconds fires at most a few milliseconds early). Short intervals, many times.
    @Test func elapsedAtLeastStaysWithinATickOfTheRealInterval() {
        for _ in 0..<200 {
            let realStart = ContinuousClock.now
            let reading = CoarseClock.nanoseconds
            usleep(UInt32.random(in: 200...3_000))
            let elapsed = CoarseClock.elapsedAtLeast(since: reading)
            let real = realStart.duration(to: .now)
            #expect(elapsed < real + .nanoseconds(CoarseClock.resolution), "coarse elapsed \(elapsed), real \(real)")
        }
    }

    /// Over a long interval it is within two ticks of the real one.
    @Test func elapsedAtLeastFollowsTheRealInterval() {
        let realStart = ContinuousClock.now
        let reading = CoarseClock.nanoseconds
        usleep(100_000)
        let elapsed = CoarseClock.elapsedAtLeast(since: reading)
        let real = realStart.duration(to: .now)
        #expect(elapsed <= real)
        #expect(elapsed >= real - .nanoseconds(3 * CoarseClock.resolution) - .milliseconds(5),
                "coarse elapsed \(elapsed), real \(real)")
    }
}
