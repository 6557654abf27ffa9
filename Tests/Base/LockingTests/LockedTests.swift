import Foundation
import Locking
import Testing

/// `Locked`: mutual exclusion across threads, values and errors through `withLock`.
struct LockedTests {
    private struct Refused: Error, Equatable {}

    @Test func incrementsFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        let threads = 8
        let increments = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == threads * increments)
    }

    @Test func withLockReturnsWhatTheBodyReturnsAndKeepsItsChanges() {
        let names = Locked<[String]>(["a"])
        let count = names.withLock { names -> Int in
            names.append("b")
            return names.count
        }
        #expect(count == 2)
        #expect(names.withLock { $0 } == ["a", "b"])
    }

    @Test func aTypedErrorLeavesTheValueAsTheBodyLeftItAndReleasesTheLock() {
        let value = Locked(1)
        #expect(throws: Refused.self) {
            try value.withLock { (number: inout Int) throws(Refused) in
                number = 2
                throw Refused()
            }
        }
        // The lock was released: taking it again does not block, and the change before the throw stays.
        #expect(value.withLock { $0 } == 2)
    }
}
