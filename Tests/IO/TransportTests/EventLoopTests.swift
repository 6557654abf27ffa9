import Glibc
import Locking
import Testing
@testable import Transport

@Suite struct EventLoopTests {
    @Test func submittedWorkRunsOnTheLoopThread() async throws {
        try await withLoop { loop in
            #expect(!loop.inEventLoop)
            let onLoop = try await loop.submit { loop.inEventLoop }
            #expect(onLoop)
        }
    }

    /// The policy is the thread's own: a batch loop runs under SCHED_BATCH (3), a default one under SCHED_OTHER (0).
    @Test(arguments: [(EventLoop.Scheduling.interactive, Int32(0)), (.batch, 3)])
    func theLoopThreadRunsUnderItsPolicy(scheduling: EventLoop.Scheduling, policy: Int32) async throws {
        let loop = try EventLoop(name: "test-policy", scheduling: scheduling)
        defer { loop.shutdown() }
        #expect(try await loop.submit { sched_getscheduler(0) } == policy)
        #expect(sched_getscheduler(0) == 0)
    }

    /// On a manual clock, so each step is exact: no timer fires before its deadline, each fires once the clock
    /// reaches it, in deadline order (equal deadlines in the order scheduled), and a cancelled one never does.
    @Test func timersFireInDeadlineOrderAndCancelledOnesDoNot() async throws {
        try await withManualClockLoop { manual in
            let loop = manual.loop
            let fired = Locked<[Int]>([])
            loop.schedule(after: .milliseconds(60)) { fired.withLock { $0.append(3) } }
            loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append(1) } }
            let cancelled = loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append(99) } }
            loop.schedule(after: .milliseconds(40)) { fired.withLock { $0.append(2) } }
            loop.schedule(after: .milliseconds(60)) { fired.withLock { $0.append(4) } }
            cancelled.cancel()
            try await manual.advance(by: .milliseconds(19))
            #expect(fired.withLock { $0 } == [])
            try await manual.advance(by: .milliseconds(1))
            #expect(fired.withLock { $0 } == [1])
            try await manual.advance(by: .milliseconds(20))
            #expect(fired.withLock { $0 } == [1, 2])
            try await manual.advance(by: .milliseconds(19))
            #expect(fired.withLock { $0 } == [1, 2])
            try await manual.advance(by: .seconds(10))
            #expect(fired.withLock { $0 } == [1, 2, 3, 4])
        }
    }

    /// A timer scheduled by a timer counts from the time the first one ran (not from its deadline), and one due at
    /// once runs in the same step.
    @Test func aTimerScheduledByATimerCountsFromWhenItRuns() async throws {
        try await withManualClockLoop { manual in
            let loop = manual.loop
            let fired = Locked<[String]>([])
            _ = try await loop.submit {
                loop.scheduleOnLoop(after: .milliseconds(10)) {
                    fired.withLock { $0.append("first") }
                    loop.scheduleOnLoop(after: .zero) { fired.withLock { $0.append("at once") } }
                    loop.scheduleOnLoop(after: .milliseconds(10)) { fired.withLock { $0.append("second") } }
                }
            }
            try await manual.advance(by: .milliseconds(15))
            #expect(fired.withLock { $0 } == ["first", "at once"])
            // Run at 15 ms, "second" is due at 25 ms, not at 20.
            try await manual.advance(by: .milliseconds(9))
            #expect(fired.withLock { $0 } == ["first", "at once"])
            try await manual.advance(by: .milliseconds(1))
            #expect(fired.withLock { $0 } == ["first", "at once", "second"])
        }
    }

    @Test func loopTimersMayCaptureLoopThreadState() async throws {
        try await withLoop { loop in
            final class Ticks { var count = 0 }
            let count: Int = try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    let ticks = Ticks()
                    func tick() {
                        ticks.count += 1
                        if ticks.count == 3 {
                            continuation.resume(returning: ticks.count)
                        } else {
                            loop.scheduleOnLoop(after: .milliseconds(5)) { tick() }
                        }
                    }
                    loop.scheduleOnLoop(after: .milliseconds(5)) { tick() }
                }
            }
            #expect(count == 3)
        }
    }

    @Test func timerDoesNotFireEarly() async throws {
        try await withLoop { loop in
            let start = ContinuousClock.now
            let elapsed: Duration = try await withCheckedThrowingContinuation { continuation in
                loop.schedule(after: .milliseconds(80)) { continuation.resume(returning: start.duration(to: .now)) }
            }
            #expect(elapsed >= .milliseconds(80))
        }
    }

    /// A released source's slot is reused by the next adopted source, but the old id (held by a timer of a closed
    /// connection, say) must not find the newcomer.
    @Test func aReleasedIdFindsNothingOnceItsSlotIsReused() async throws {
        try await withLoop { loop in
            let found = try await loop.submit { () -> [Bool] in
                let first = IdleSource()
                let second = IdleSource()
                let firstID = loop.adopt(first)
                loop.release(firstID)
                let secondID = loop.adopt(second)
                defer { loop.release(secondID) }
                return [firstID != secondID, loop.source(firstID) == nil, loop.source(secondID) === second,
                        loop.source(0) == nil, loop.source(secondID + 1) == nil]
            }
            #expect(found == [true, true, true, true, true])
        }
    }

    @Test func workAfterShutdownIsRefused() async throws {
        let loop = try EventLoop(name: "stopped")
        loop.shutdown()
        let error = await #expect(throws: TransportError.self) { try await loop.submit { 1 } }
        #expect(error?.code == .closed)
    }

    @Test func shutdownClosesOpenConnections() async throws {
        let loop = try EventLoop(name: "closing")
        let (port, _) = try await startListener(on: loop) { $0.handler = EchoHandler() }
        let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                       loop: loop)
        loop.shutdown()
        let error = await #expect(throws: TransportError.self) { try await client.read() }
        #expect(error?.code == .closed)
        #expect(throws: TransportError.self) { try client.write([1]) }
        await client.close()
    }
}

/// An adopted source with no descriptor.
private final class IdleSource: EventSource {
    func handleEvents(_ events: UInt32) {}
    func loopDidShutDown() {}
}
