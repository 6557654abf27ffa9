import AppLogic
import Engine
import Testing

@Suite struct BroadcastLifecycleMachineTests {
    private let refused = BroadcastError(.encoderFailed, "OSStatus -12902")

    private func running() -> BroadcastLifecycleMachine {
        var machine = BroadcastLifecycleMachine()
        #expect(machine.started(failure: nil) == .start)
        return machine
    }

    @Test func aBroadcastRunsPausesAndStops() {
        var machine = running()
        #expect(machine.sample() == .process)
        #expect(machine.paused(true) == .pause(true))
        #expect(machine.paused(true) == .none)                  // already paused
        #expect(machine.sample() == .process)                   // the pipeline drops paused buffers itself
        #expect(machine.paused(false) == .pause(false))
        #expect(machine.finished() == .stop)
        #expect(machine.hasEnded)
        #expect(machine.sample() == .none)
        #expect(machine.paused(true) == .none)
        #expect(machine.engineEnded(.failed(refused)) == .none)  // the engine's end after the user's stop
        #expect(machine.finished() == .none)
    }

    @Test func aPipelineThatCannotBeMadeFailsWithNothingToStop() {
        var machine = BroadcastLifecycleMachine()
        #expect(machine.started(failure: .missingCredentials) == .fail(.missingCredentials))
        #expect(machine.hasEnded)
        #expect(machine.sample() == .none)
        #expect(machine.finished() == .none)
    }

    @Test func aFailedBufferEndsTheBroadcastOnce() {
        var machine = running()
        #expect(machine.sampleFailed(.encoderFailed(detail: "x")) == .stopAndFail(.encoderFailed(detail: "x")))
        #expect(machine.sampleFailed(.encoderFailed(detail: "y")) == .none)
        #expect(machine.engineEnded(.failed(refused)) == .none)
        #expect(machine.finished() == .none)
    }

    @Test func theEngineFailingEndsTheBroadcastWithItsFailure() {
        var machine = running()
        #expect(machine.engineEnded(.live) == .none)
        #expect(machine.engineEnded(.failed(refused)) == .stopAndFail(BroadcastFailure(refused)))
        #expect(machine.sample() == .none)
        #expect(machine.sampleFailed(.timeout) == .none)
    }

    @Test func nothingHappensBeforeTheStart() {
        var machine = BroadcastLifecycleMachine()
        #expect(machine.sample() == .none)
        #expect(machine.paused(true) == .none)
        #expect(machine.sampleFailed(.timeout) == .none)
        #expect(machine.engineEnded(.failed(refused)) == .none)
        #expect(!machine.hasEnded)
        #expect(machine.finished() == .none)
        #expect(machine.hasEnded)
        #expect(machine.started(failure: nil) == .none)         // a start after the finish makes nothing
    }
}
