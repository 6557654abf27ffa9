import AppLogic
import Engine
import Foundation
import ReplayKit
import StreamCore
import Synchronization

/// The Broadcast Upload Extension's entry point, hosted by replayd. It owns one `BroadcastPipeline` behind a lock:
/// ReplayKit calls arrive on its own threads, the engine's end on its task.
final class SampleHandler: RPBroadcastSampleHandler, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is `pipeline`, and every access to it goes through the Mutex.
    private let pipeline = Mutex<BroadcastPipeline?>(nil)

    override func broadcastStarted(withSetupInfo setupInfo: [String: NSObject]?) {
        do throws(BroadcastPipeline.Failure) {
            let made = try BroadcastPipeline { [weak self] final in self?.ended(final) }
            // Stored before it starts, so that the engine's end finds it.
            pipeline.withLock { pipeline in
                pipeline = made
                pipeline?.start()
            }
        } catch {
            finish(error.failure, credentials: nil)
        }
    }

    override func broadcastPaused() {
        pipeline.withLock { $0?.pause(true) }
    }

    override func broadcastResumed() {
        pipeline.withLock { $0?.pause(false) }
    }

    override func broadcastFinished() {
        pipeline.withLock { pipeline in
            pipeline?.stop()
            pipeline = nil
        }
    }

    override func processSampleBuffer(_ sampleBuffer: CMSampleBuffer, with sampleBufferType: RPSampleBufferType) {
        let kind: SampleBufferKind
        switch sampleBufferType {
        case .video: kind = .video
        case .audioApp: kind = .audioApp
        case .audioMic: kind = .audioMic
        @unknown default: return
        }
        let failed = pipeline.withLock { pipeline -> (BroadcastFailure, StreamCredentials)? in
            guard let current = pipeline else { return nil }
            do throws(BroadcastPipeline.Failure) {
                try current.handle(sampleBuffer, kind: kind)
                return nil
            } catch {
                current.stop()
                pipeline = nil
                return (error.failure, current.credentials)
            }
        }
        if let (failure, credentials) = failed { finish(failure, credentials: credentials) }
    }

    /// The engine ended: after a failure (an ingest that refused, a connection that could not come back within
    /// the reconnect schedule) the user is told why; an end asked for by `broadcastFinished` says nothing.
    private func ended(_ final: BroadcastState) {
        guard case .failed(let error) = final else { return }
        let credentials = pipeline.withLock { pipeline -> StreamCredentials? in
            let credentials = pipeline?.credentials
            pipeline?.stop()
            pipeline = nil
            return credentials
        }
        finish(BroadcastFailure(error), credentials: credentials)
    }

    /// Ends the broadcast with the readable message iOS shows to the user (never containing the stream key).
    private func finish(_ failure: BroadcastFailure, credentials: StreamCredentials?) {
        let message = failure.message(url: credentials?.url, streamKey: credentials?.streamKey)
        finishBroadcastWithError(NSError(domain: BroadcastFailure.errorDomain, code: failure.code,
                                         userInfo: [NSLocalizedDescriptionKey: message]))
    }
}
