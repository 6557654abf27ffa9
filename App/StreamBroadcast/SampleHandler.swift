import AppLogic
import Engine
import Foundation
import ReplayKit
import StreamCore
import Synchronization

/// The Broadcast Upload Extension's entry point, hosted by replayd. It owns one `BroadcastPipeline` behind a lock:
/// ReplayKit calls arrive on its own threads, the engine's end on its task. What each call does is
/// `BroadcastLifecycleMachine`'s decision (AppLogic, tested); this class runs it.
final class SampleHandler: RPBroadcastSampleHandler, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is `session`, and every access to it goes through the Mutex.
    private let session = Mutex(Session())

    /// The pipeline and the machine deciding what reaches it, changed together under the lock.
    private struct Session {
        var lifecycle = BroadcastLifecycleMachine()
        var pipeline: BroadcastPipeline?
    }

    override func broadcastStarted(withSetupInfo setupInfo: [String: NSObject]?) {
        let failed = session.withLock { session -> BroadcastFailure? in
            // Made inside the lock (issue 35 defect 3: a non-Sendable value made outside cannot be assigned through
            // `withLock`'s `inout sending` parameter, swiftlang/swift#77199), and stored before it starts, so that
            // the engine's end finds it.
            var made: BroadcastPipeline?
            var failure: BroadcastFailure?
            do throws(BroadcastFailure) {
                made = try BroadcastPipeline { [weak self] final in self?.ended(final) }
            } catch {
                failure = error
            }
            switch session.lifecycle.started(failure: failure) {
            case .start:
                session.pipeline = made
                session.pipeline?.start()
                return nil
            case .fail(let failure):
                return failure
            case .none, .process, .pause, .stop, .stopAndFail:
                return nil
            }
        }
        if let failed { finish(failed, credentials: nil) }
    }

    override func broadcastPaused() {
        session.withLock { session in
            if case .pause(let paused) = session.lifecycle.paused(true) { session.pipeline?.pause(paused) }
        }
    }

    override func broadcastResumed() {
        session.withLock { session in
            if case .pause(let paused) = session.lifecycle.paused(false) { session.pipeline?.pause(paused) }
        }
    }

    override func broadcastFinished() {
        _ = session.withLock { session in Self.end(session.lifecycle.finished(), &session) }
    }

    override func processSampleBuffer(_ sampleBuffer: CMSampleBuffer, with sampleBufferType: RPSampleBufferType) {
        let kind: SampleBufferKind
        switch sampleBufferType {
        case .video: kind = .video
        case .audioApp: kind = .audioApp
        case .audioMic: kind = .audioMic
        @unknown default: return
        }
        let failed = session.withLock { session -> (BroadcastFailure, StreamCredentials?)? in
            guard session.lifecycle.sample() == .process, let pipeline = session.pipeline else { return nil }
            do throws(BroadcastFailure) {
                try pipeline.handle(sampleBuffer, kind: kind)
                return nil
            } catch {
                return Self.end(session.lifecycle.sampleFailed(error), &session)
            }
        }
        if let (failure, credentials) = failed { finish(failure, credentials: credentials) }
    }

    /// The engine ended: after a failure (an ingest that refused, a connection that could not come back within
    /// the reconnect schedule) the user is told why; an end asked for by `broadcastFinished` says nothing.
    private func ended(_ final: BroadcastState) {
        let failed = session.withLock { session in Self.end(session.lifecycle.engineEnded(final), &session) }
        if let (failure, credentials) = failed { finish(failure, credentials: credentials) }
    }

    /// Runs an ending action under the lock: stops and lets go of the pipeline.
    /// - Returns: the failure to tell the user once the lock is released, with the credentials its message may
    ///   name (redacted), or nil.
    private static func end(_ action: BroadcastLifecycleMachine.Action,
                            _ session: inout Session) -> (BroadcastFailure, StreamCredentials?)? {
        switch action {
        case .stop, .stopAndFail:
            let credentials = session.pipeline?.credentials
            session.pipeline?.stop()
            session.pipeline = nil
            if case .stopAndFail(let failure) = action { return (failure, credentials) }
            return nil
        case .fail(let failure):
            return (failure, nil)
        case .none, .start, .process, .pause:
            return nil
        }
    }

    /// Ends the broadcast with the readable message iOS shows to the user (never containing the stream key).
    private func finish(_ failure: BroadcastFailure, credentials: StreamCredentials?) {
        let message = failure.message(url: credentials?.url, streamKey: credentials?.streamKey)
        finishBroadcastWithError(NSError(domain: BroadcastFailure.errorDomain, code: failure.code,
                                         userInfo: [NSLocalizedDescriptionKey: message]))
    }
}
