import Dispatch
import Engine
import Locking
import Media

/// What the media thread and the session share: stop, failure and pause, and the pool counters the media thread
/// publishes. Every field is behind one lock, held only for a copy.
final class PipelineControl: Sendable {
    private struct State {
        var stopReason: BroadcastEndReason?
        var failure: BroadcastError?
        var statistics = PipelineStatistics()
        var paused = false
        var muted = false
        var blanked = false
        /// The media thread is blocked in ``waitWhilePaused()``.
        var waiting = false
    }

    private let state = Locked(State())
    /// Wakes a paused media thread (signalled only when it is waiting, so no stale wake-up is left behind).
    private let resumed = DispatchSemaphore(value: 0)

    /// Asks the media thread to stop for `reason` (the first reason wins); a paused thread wakes up.
    func stop(_ reason: BroadcastEndReason) {
        state.withLock { value in
            if value.stopReason == nil { value.stopReason = reason }
        }
        wakeIfWaiting()
    }

    /// Records a failure (the first wins); the media thread stops.
    func fail(_ error: BroadcastError) {
        state.withLock { value in
            if value.failure == nil { value.failure = error }
        }
        wakeIfWaiting()
    }

    /// Whether the media thread should stop.
    var shouldStop: Bool { state.withLock { $0.stopReason != nil || $0.failure != nil } }

    /// Why it stopped, and whether it failed.
    var outcome: (reason: BroadcastEndReason?, failure: BroadcastError?) {
        state.withLock { ($0.stopReason, $0.failure) }
    }

    /// Holds the media thread before its next frame until ``resume()``.
    func pause() {
        state.withLock { $0.paused = true }
    }

    /// Lets a paused media thread go on.
    func resume() {
        state.withLock { $0.paused = false }
        wakeIfWaiting()
    }

    /// Whether a pause is asked.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// Silences the sound (encoded as silence, so the stream's timing goes on) or lets it through again.
    func setMuted(_ muted: Bool) {
        state.withLock { $0.muted = muted }
    }

    /// Replaces the picture with black (encoded, so the stream's timing goes on) or shows it again.
    func setBlanked(_ blanked: Bool) {
        state.withLock { $0.blanked = blanked }
    }

    /// Whether the sound is silenced and the picture black, read once per loop turn.
    var switches: (muted: Bool, blanked: Bool) { state.withLock { ($0.muted, $0.blanked) } }

    /// Called by the media thread: blocks (costing nothing) while paused and not stopping.
    func waitWhilePaused() {
        while state.withLock({ value -> Bool in
            let wait = value.paused && value.stopReason == nil && value.failure == nil
            value.waiting = wait
            return wait
        }) {
            resumed.wait()
        }
    }

    private func wakeIfWaiting() {
        let wake = state.withLock { value -> Bool in
            defer { value.waiting = false }
            return value.waiting
        }
        if wake { resumed.signal() }
    }

    /// The latest pool counters.
    var statistics: PipelineStatistics { state.withLock { $0.statistics } }

    /// Publishes pool counters.
    func publish(_ statistics: PipelineStatistics) {
        state.withLock { $0.statistics = statistics }
    }
}

/// The Linux pipeline's own counters: its frame pools and the compositor.
public struct PipelineStatistics: Sendable, Hashable {
    /// Frame buffers allocated by the screen source's pool, the encode converter's pool and the compositor (a
    /// steady state adds none).
    public var frameBufferAllocations = 0
    /// The screen source's pool counters.
    public var screenPool = PoolStatistics()
    /// The encode converter's pool counters.
    public var encodePool = PoolStatistics()
    /// The camera source's pool counters.
    public var cameraPool = PoolStatistics()
    /// Frames that got the camera picture drawn in.
    public var framesComposited = 0

    /// Zeroed counters.
    public init() {}
}
