import Locking
import Publisher
import StreamCore
import Testing

/// The byte stream the iOS shell runs over `NWConnection`, over a scripted transport: what each caller gets, when
/// the transport is cancelled, and the timeouts' seconds.
struct CallbackByteStreamTests {
    /// A transport whose callbacks the test scripts: answered inside the call when scripted, else held for later.
    final class ScriptedTransport: CallbackTransport {
        struct State {
            /// Reported inside `start`.
            var startEvents: [CallbackTransportEvent] = []
            var report: (@Sendable (CallbackTransportEvent) -> Void)?
            /// Answers for `receive`, in order; when none is left, the completion is held.
            var receives: [([UInt8], Bool, NetworkFailure?)] = []
            var heldReceives: [@Sendable ([UInt8], Bool, NetworkFailure?) -> Void] = []
            /// Whether sends complete inside `send` (with no failure); else they are held.
            var sendsCompleteAtOnce = true
            var sent: [[UInt8]] = []
            var heldSends: [@Sendable (NetworkFailure?) -> Void] = []
            var endCompletesAtOnce = true
            var endsSent = 0
            /// Whether timers run inside `schedule`; else they are held.
            var timersFireAtOnce = false
            var scheduled: [Double] = []
            var heldTimers: [@Sendable () -> Void] = []
            var cancels = 0
        }

        let state = Locked(State())

        func start(reporting report: @escaping @Sendable (CallbackTransportEvent) -> Void) {
            let events = state.withLock { state in
                state.report = report
                return state.startEvents
            }
            for event in events { report(event) }
        }

        func send(_ bytes: [UInt8], completion: @escaping @Sendable (NetworkFailure?) -> Void) {
            let now = state.withLock { state in
                state.sent.append(bytes)
                if !state.sendsCompleteAtOnce { state.heldSends.append(completion) }
                return state.sendsCompleteAtOnce
            }
            if now { completion(nil) }
        }

        func receive(maximumLength: Int, completion: @escaping @Sendable ([UInt8], Bool, NetworkFailure?) -> Void) {
            let answer = state.withLock { state -> ([UInt8], Bool, NetworkFailure?)? in
                guard !state.receives.isEmpty else {
                    state.heldReceives.append(completion)
                    return nil
                }
                return state.receives.removeFirst()
            }
            if let (bytes, done, failure) = answer { completion(bytes, done, failure) }
        }

        func sendEnd(completion: @escaping @Sendable () -> Void) {
            let now = state.withLock { state in
                state.endsSent += 1
                return state.endCompletesAtOnce
            }
            if now { completion() }
        }

        func cancel() {
            state.withLock { $0.cancels += 1 }
        }

        func schedule(afterSeconds seconds: Double, _ body: @escaping @Sendable () -> Void) {
            let now = state.withLock { state in
                state.scheduled.append(seconds)
                if !state.timersFireAtOnce { state.heldTimers.append(body) }
                return state.timersFireAtOnce
            }
            if now { body() }
        }

        /// Runs every held timer.
        func fireTimers() {
            for timer in state.withLock({ state in defer { state.heldTimers = [] }; return state.heldTimers }) {
                timer()
            }
        }
    }

    private let url = IngestURL(scheme: .rtmp, host: "live.example", port: 1935, app: "live")
    private let unresolvable = NetworkFailure(domain: .dns, code: -65554, detail: "NoSuchRecord")

    private func stream(_ script: (inout ScriptedTransport.State) -> Void = { _ in })
        -> CallbackByteStream<ScriptedTransport> {
        let transport = ScriptedTransport()
        transport.state.withLock { state in
            state.startEvents = [.ready]
            script(&state)
        }
        return CallbackByteStream(url: url, transport: transport)
    }

    @Test func anOpenReturnsOnceTheTransportIsReadyAndItsTimerThenDoesNothing() async throws {
        let stream = stream()
        try await stream.open(timeout: .seconds(10))
        #expect(stream.endpoint == "live.example:1935")
        #expect(stream.transport.state.withLock { $0.scheduled } == [10])
        stream.transport.fireTimers()
        try stream.write([1, 2, 3])
        #expect(stream.transport.state.withLock { $0.sent } == [[1, 2, 3]])
        #expect(stream.transport.state.withLock { $0.cancels } == 0)
    }

    @Test func anOpenThatFailsThrowsTheWordedErrorAndCancelsTheTransport() async {
        let stream = stream { $0.startEvents = [.failed(unresolvable)] }
        await #expect(throws: LinkError(.dns, "cannot resolve live.example:1935: NoSuchRecord")) {
            try await stream.open(timeout: .seconds(10))
        }
        #expect(stream.transport.state.withLock { $0.cancels } == 1)
    }

    @Test func anOpenTimesOutAfterItsTimeoutWithItsFraction() async {
        let stream = stream { state in
            state.startEvents = []
            state.timersFireAtOnce = true
        }
        await #expect(throws: LinkError(.timedOut, "connecting to live.example:1935 timed out")) {
            try await stream.open(timeout: .milliseconds(2500))
        }
        #expect(stream.transport.state.withLock { $0.scheduled } == [2.5])
        #expect(stream.transport.state.withLock { $0.cancels } == 1)
    }

    @Test func aReadReturnsTheBytesThenNilAtThePeersEnd() async throws {
        let stream = stream { $0.receives = [([0x03, 0x00], false, nil), ([], true, nil)] }
        try await stream.open(timeout: .seconds(10))
        #expect(try await stream.read() == [0x03, 0x00])
        #expect(try await stream.read() == nil)
    }

    @Test func bytesWinOverAnErrorReportedWithThemThenTheErrorEndsTheStream() async throws {
        let reset = NetworkFailure(domain: .unknown, code: 0, detail: "reset")
        let stream = stream { $0.receives = [([7], false, reset), ([], false, reset)] }
        try await stream.open(timeout: .seconds(10))
        #expect(try await stream.read() == [7])
        let failure = LinkError(.closed, "live.example:1935: reset")
        await #expect(throws: failure) { try await stream.read() }
        #expect(throws: failure) { try stream.write([1]) }
    }

    @Test func queuedBytesCountUntilTheTransportProcessesThemAndThenADrainWaitReturns() async throws {
        let stream = stream { $0.sendsCompleteAtOnce = false }
        try await stream.open(timeout: .seconds(10))
        try stream.write([UInt8](repeating: 0, count: 100))
        try stream.write([UInt8](repeating: 0, count: 50))
        #expect(stream.queuedBytes == 150)
        try await stream.waitForDrain(below: 151)  // already below: at once
        async let drained: Void = stream.waitForDrain(below: 60)
        let held = stream.transport.state.withLock { $0.heldSends }
        held[0](nil)
        try await drained
        #expect(stream.queuedBytes == 50)
        held[1](nil)
        #expect(stream.queuedBytes == 0)
    }

    @Test func aFailedSendEndsTheStreamForEveryLaterCall() async throws {
        let stream = stream { $0.sendsCompleteAtOnce = false }
        try await stream.open(timeout: .seconds(10))
        try stream.write([1, 2, 3, 4])
        async let drained: Void = stream.waitForDrain(below: 1)
        stream.transport.state.withLock { $0.heldSends }[0](unresolvable)
        let failure = LinkError(.dns, "cannot resolve live.example:1935: NoSuchRecord")
        var caught: (any Error)?
        do { try await drained } catch { caught = error }
        #expect(caught as? LinkError == failure)
        #expect(stream.queuedBytes == 0)
        #expect(throws: failure) { try stream.write([5]) }
        await #expect(throws: failure) { try await stream.read() }
    }

    @Test func aCancelledConnectionIsAClosedLink() async throws {
        let stream = stream()
        try await stream.open(timeout: .seconds(10))
        stream.transport.state.withLock { $0.report }?(.cancelled)
        #expect(throws: LinkError(.closed, "the connection to live.example:1935 was closed")) {
            try stream.write([1])
        }
    }

    @Test func aCloseEndsAPendingReadAndCancelsOnceTheEndIsSent() async throws {
        let stream = stream()
        try await stream.open(timeout: .seconds(10))
        async let read = stream.read()
        await stream.close(flushTimeout: .milliseconds(500))
        #expect(try await read == nil)
        #expect(stream.transport.state.withLock { ($0.endsSent, $0.cancels, $0.scheduled) } == (1, 1, [10, 0.5]))
        stream.transport.fireTimers()  // the flush's timer, too late: no second cancel
        #expect(stream.transport.state.withLock { $0.cancels } == 1)
        #expect(throws: LinkError(.closed, "the connection to live.example:1935 is closed")) {
            try stream.write([1])
        }
    }

    @Test func aCloseWhoseEndIsNeverProcessedReturnsAtItsTimeout() async throws {
        let stream = stream { $0.endCompletesAtOnce = false }
        try await stream.open(timeout: .seconds(10))
        stream.transport.state.withLock { $0.timersFireAtOnce = true }
        await stream.close(flushTimeout: .milliseconds(500))
        #expect(stream.transport.state.withLock { ($0.endsSent, $0.cancels, $0.scheduled) } == (1, 1, [10, 0.5]))
    }
}
