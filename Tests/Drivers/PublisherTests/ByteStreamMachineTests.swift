import Publisher
import Testing

/// The byte stream's bookkeeping, with names for waiters: what each event resumes, and with what.
struct ByteStreamMachineTests {
    typealias Machine = ByteStreamMachine<String>

    private func names(_ resumptions: [Machine.Resumption]) -> [String] {
        resumptions.map { "\($0.waiter): \($0.outcome)" }
    }

    private let refused = LinkError(.refused, "live.example:1935: connection refused")
    private let reset = LinkError(.closed, "live.example:1935: connection reset")

    @Test func anOpenIsAnsweredOnceReady() {
        var machine = Machine(endpoint: "live.example:1935")
        #expect(machine.opening("open").isEmpty)
        #expect(machine.isOpening)
        #expect(names(machine.ready()) == ["open: ready"])
        #expect(!machine.isOpening)
        #expect(machine.ready().isEmpty)
    }

    @Test func theFirstFailureReachesEveryWaiterAndEveryLaterCall() {
        var machine = Machine(endpoint: "live.example:1935")
        _ = machine.opening("open")
        #expect(machine.reading("read").isEmpty)
        #expect(machine.write(count: 100) == nil)
        #expect(machine.drainWait(below: 50, "drain").isEmpty)
        #expect(names(machine.fail(refused)) == ["open: failure(\(refused))", "read: failure(\(refused))",
                                                 "drain: failure(\(refused))"])
        // A second failure does not replace the first, and finds no one waiting.
        #expect(machine.fail(reset).isEmpty)
        #expect(machine.write(count: 1) == refused)
        #expect(names(machine.reading("again")) == ["again: failure(\(refused))"])
        #expect(names(machine.drainWait(below: 1000, "drain again")) == ["drain again: failure(\(refused))"])
        #expect(machine.close().isEmpty)
        #expect(machine.write(count: 1) == refused)  // the failure outlives the close
    }

    @Test func writesAreQueuedUntilProcessedAndDrainWaitersWakeBelowTheirThreshold() {
        var machine = Machine(endpoint: "live.example:1935")
        #expect(machine.write(count: 3000) == nil)
        #expect(machine.queuedBytes == 3000)
        #expect(names(machine.drainWait(below: 4000, "at once")) == ["at once: ready"])
        #expect(machine.drainWait(below: 2000, "below 2000").isEmpty)
        #expect(machine.drainWait(below: 500, "below 500").isEmpty)
        #expect(names(machine.processed(count: 1500)) == ["below 2000: ready"])
        #expect(machine.processed(count: 1000).isEmpty)
        #expect(names(machine.processed(count: 500)) == ["below 500: ready"])
        #expect(machine.queuedBytes == 0)
    }

    @Test func aReadGetsItsBytesTheEndOrTheFailure() {
        var machine = Machine(endpoint: "live.example:1935")
        _ = machine.reading("first")
        // Bytes win over an error the transport reports with them.
        #expect(names(machine.received(hasData: true, done: false, error: reset)) == ["first: data"])
        _ = machine.reading("second")
        #expect(names(machine.received(hasData: false, done: true, error: nil)) == ["second: end"])
        _ = machine.reading("third")
        #expect(names(machine.received(hasData: false, done: false, error: reset)) == ["third: failure(\(reset))"])
        #expect(machine.write(count: 1) == reset)
    }

    @Test func aCloseEndsAWaitingReadAndRefusesWrites() {
        var machine = Machine(endpoint: "live.example:1935")
        _ = machine.reading("read")
        #expect(names(machine.close()) == ["read: end"])
        #expect(names(machine.reading("after")) == ["after: end"])
        #expect(machine.received(hasData: false, done: false, error: reset).isEmpty)
        #expect(machine.write(count: 1) == LinkError(.closed, "the connection to live.example:1935 is closed"))
        // A failure after the close is not the stream's: waiters hear of it, later calls do not.
        _ = machine.drainWait(below: -1, "drain")
        #expect(names(machine.fail(refused)) == ["drain: failure(\(refused))"])
        #expect(names(machine.reading("later")) == ["later: end"])
    }
}
