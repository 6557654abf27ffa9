#if canImport(Glibc)
import FoundationEssentials
import Dispatch
import Glibc
#else
import Foundation
#endif
import Media
import Locking

/// Runs a ``CameraSource`` on its own thread and keeps only its latest frame, for a picture-in-picture that must
/// never wait for the camera.
///
/// Camera reads block (V4L2 until the next exposure, a FIFO until its writer sends); the broadcast's media loop
/// cannot. The feed reads continuously (pacing sources that do not pace themselves at their frame rate) into a
/// `LatestFrameSlot`; the loop takes whatever is newest, or nil when nothing new arrived (keep showing the last).
public final class CameraFeed: Sendable {
    private let slot = LatestFrameSlot()
    private let shared = Shared()
    /// The source's frame size and rate, known once it opened.
    public let width: Int
    /// Height of the frames in pixels.
    public let height: Int
    /// Nominal frames per second.
    public let frameRate: Double

    private struct State {
        var stopping = false
        var ended = false
        var failure: CaptureError?
        var pool = PoolStatistics()
    }

    /// The state both threads see, behind a lock.
    private final class Shared: Sendable {
        let state = Locked(State())
    }

    /// Opens the camera on a new thread with `open` and starts reading.
    /// - Parameter open: creates the source; it runs on the feed's thread, which then owns the source.
    /// - Throws: the ``CaptureError`` `open` threw.
    public init(open: @escaping @Sendable () throws(CaptureError) -> any CameraSource) throws(CaptureError) {
        let opened = Locked<Result<(Int, Int, Double), CaptureError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let slot = slot
        let shared = shared
        DetachedThread.start(name: "stream.camera") {
            let camera: any CameraSource
            do throws(CaptureError) {
                camera = try open()
            } catch {
                opened.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            opened.withLock { $0 = .success((camera.width, camera.height, camera.frameRate)) }
            ready.signal()
            Self.read(camera, into: slot, shared: shared)
        }
        ready.wait()
        switch opened.withLock({ $0 })! {
        case .success(let (width, height, frameRate)):
            self.width = width
            self.height = height
            self.frameRate = frameRate
        case .failure(let error):
            throw error
        }
    }

    deinit { stop() }

    /// The newest frame not taken yet, or nil when none arrived since the last call.
    public func latestFrame() -> VideoFrame? { slot.take() }

    /// Delivered, taken and overwritten frame counts.
    public var statistics: LatestFrameSlot.Statistics { slot.statistics }

    /// The camera's frame pool counters, as of its last read.
    public var poolStatistics: PoolStatistics { shared.state.withLock { $0.pool } }

    /// Set when the camera failed; the feed then stops reading.
    public var failure: CaptureError? { shared.state.withLock { $0.failure } }

    /// Whether the source ended (a closed pipe) or failed.
    public var hasEnded: Bool { shared.state.withLock { $0.ended } }

    /// Asks the reading thread to stop after its current read; the source is released on that thread.
    public func stop() { shared.state.withLock { $0.stopping = true } }

    private static func read(_ camera: any CameraSource, into slot: LatestFrameSlot, shared: Shared) {
        let state = shared
        let interval = camera.frameRate > 0 ? Int64(1_000_000_000 / camera.frameRate) : 33_333_333
        var deadline = MonotonicClock.nanoseconds
        while !state.state.withLock({ $0.stopping }) {
            if !camera.pacesItself {
                let now = MonotonicClock.nanoseconds
                if deadline > now { usleep(UInt32(min(1_000_000, (deadline - now) / 1_000))) }
                deadline = max(deadline + interval, MonotonicClock.nanoseconds - interval)
            }
            do throws(CaptureError) {
                let read = try camera.nextFrame(pts: MonotonicClock.nanoseconds)
                let pool = camera.poolStatistics
                state.state.withLock { $0.pool = pool }
                switch read {
                case .frame(let frame): slot.put(frame)
                case .dropped: continue
                case .ended:
                    state.state.withLock { $0.ended = true }
                    return
                }
            } catch {
                state.state.withLock {
                    $0.failure = error
                    $0.ended = true
                }
                return
            }
        }
    }
}
