import Engine

/// The broadcast extension's life from `broadcastStarted` to its end: which of ReplayKit's calls and the engine's end
/// still reach the pipeline, and the one failure the user is told about. Pure: `SampleHandler` feeds it each call
/// under its lock and runs the action it returns.
///
/// A broadcast ends once: after the user's stop, a failed buffer or a failed engine, later buffers, pauses and
/// failures do nothing, so `finishBroadcastWithError` is called at most once and never after `broadcastFinished`.
public struct BroadcastLifecycleMachine: Sendable {
    /// What the handler does.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// Start the pipeline just made.
        case start
        /// Hand the buffer to the pipeline.
        case process
        /// Pause (true) or resume (false) the pipeline.
        case pause(Bool)
        /// Stop the pipeline and let it go; the user asked for the end, nothing to tell.
        case stop
        /// Stop the pipeline, let it go, and end the broadcast with this failure's message.
        case stopAndFail(BroadcastFailure)
        /// End the broadcast with this failure's message: there is no pipeline to stop.
        case fail(BroadcastFailure)
    }

    private enum State: Sendable {
        /// Before `broadcastStarted`.
        case idle
        /// The pipeline runs; `paused` between `broadcastPaused` and `broadcastResumed`.
        case running(paused: Bool)
        /// Stopped or failed: nothing reaches a pipeline any more.
        case ended
    }

    private var state = State.idle

    /// Creates a machine before `broadcastStarted`.
    public init() {}

    /// Whether the broadcast has ended (stopped or failed).
    public var hasEnded: Bool {
        switch state {
        case .ended: true
        case .idle, .running: false
        }
    }

    /// `broadcastStarted`, with the pipeline made or the reason it could not be.
    /// - Parameter failure: nil when the pipeline was made.
    public mutating func started(failure: BroadcastFailure?) -> Action {
        switch state {
        case .idle:
            if let failure {
                state = .ended
                return .fail(failure)
            }
            state = .running(paused: false)
            return .start
        case .running, .ended:
            return .none
        }
    }

    /// `broadcastPaused` (true) or `broadcastResumed` (false).
    public mutating func paused(_ paused: Bool) -> Action {
        switch state {
        case .running(let current) where current != paused:
            state = .running(paused: paused)
            return .pause(paused)
        case .idle, .running, .ended:
            return .none
        }
    }

    /// `processSampleBuffer`: the pipeline routes buffers while paused too (it drops them itself).
    public func sample() -> Action {
        switch state {
        case .running: .process
        case .idle, .ended: .none
        }
    }

    /// The pipeline could not handle a buffer: the broadcast ends with that failure.
    public mutating func sampleFailed(_ failure: BroadcastFailure) -> Action {
        switch state {
        case .running:
            state = .ended
            return .stopAndFail(failure)
        case .idle, .ended:
            return .none
        }
    }

    /// The engine ended: a failure (an ingest that refused, a connection that did not come back) ends the broadcast
    /// with it; any other end was asked for and says nothing.
    public mutating func engineEnded(_ final: BroadcastState) -> Action {
        guard case .failed(let error) = final else { return .none }
        switch state {
        case .running:
            state = .ended
            return .stopAndFail(BroadcastFailure(error))
        case .idle, .ended:
            return .none
        }
    }

    /// `broadcastFinished`: the user stopped the broadcast.
    public mutating func finished() -> Action {
        switch state {
        case .running:
            state = .ended
            return .stop
        case .idle:
            state = .ended
            return .none
        case .ended:
            return .none
        }
    }
}
