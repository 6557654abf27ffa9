import Media
import Locking

/// What the media thread and the session's tasks share: stop and failure, the requested bitrate, and the counters
/// the media thread publishes. Every field is behind one lock, held only for a copy.
final class PipelineControl: Sendable {
    /// Counters published by the media thread after each frame.
    struct Counters: Sendable {
        var videoBytes = 0
        var audioBytes = 0
        var framesEncoded = 0
        var audioFramesEncoded = 0
        var framesSkippedLate = 0
        var framesComposited = 0
        var frameBufferAllocations = 0
        var screenPool = PoolStatistics()
        var encodePool = PoolStatistics()
        var cameraPool = PoolStatistics()
        var videoBitrateKbps = 0
        /// Time spent producing video frames (render, convert, composite, encode), in seconds, since the start.
        var videoWorkSeconds = 0.0
        /// Seconds since the media clock started (0 before).
        var elapsedSeconds = 0.0
    }

    private struct State {
        var stopReason: BroadcastEndReason?
        var failure: BroadcastError?
        var requestedBitrateKbps: Int?
        var counters = Counters()
        var finished = false
    }

    private let state = Locked(State())

    /// Asks the media thread to stop for `reason` (the first reason wins).
    func stop(_ reason: BroadcastEndReason) {
        state.withLock { value in
            if value.stopReason == nil { value.stopReason = reason }
        }
    }

    /// Records a failure (the first wins); the media thread stops.
    func fail(_ error: BroadcastError) {
        state.withLock { value in
            if value.failure == nil { value.failure = error }
        }
    }

    /// Whether the media thread should stop.
    var shouldStop: Bool { state.withLock { $0.stopReason != nil || $0.failure != nil } }

    /// Why it stopped, and whether it failed.
    var outcome: (reason: BroadcastEndReason?, failure: BroadcastError?) {
        state.withLock { ($0.stopReason, $0.failure) }
    }

    /// Asks the encoder for a new bitrate (applied before the next frame).
    func requestBitrate(_ kbps: Int) {
        state.withLock { $0.requestedBitrateKbps = kbps }
    }

    /// The bitrate asked for since the last call, if any.
    func takeRequestedBitrate() -> Int? {
        state.withLock { value in
            defer { value.requestedBitrateKbps = nil }
            return value.requestedBitrateKbps
        }
    }

    /// The latest counters.
    var counters: Counters { state.withLock { $0.counters } }

    /// Publishes counters.
    func publish(_ counters: Counters) {
        state.withLock { $0.counters = counters }
    }

    /// Whether the media thread has finished (sources stopped, encoders flushed).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Marks the media thread finished.
    func markFinished() {
        state.withLock { $0.finished = true }
    }
}
