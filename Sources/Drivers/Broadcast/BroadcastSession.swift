#if os(Linux)
import Engine
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking
import StreamCore

/// A live broadcast on Linux: screen, camera and audio sources → PiP compositor → H.264/AAC encoders → FLV tags →
/// the ``Engine/BroadcastEngine`` and its outputs.
///
/// - The encode size is locked when the session is created, from the screen's size and the quality.
/// - Audio and video are stamped on one monotonic clock that starts when every output is first live, so they stay
///   in sync. The media work runs on its own thread in real time (see `MediaPipeline`): when it falls behind, frames
///   are skipped and counted, never drifted.
/// - Each output has its own bounded send queue and reconnects on its own; the engine decides what the broadcast
///   does when one fails, and drives adaptive bitrate (a setting).
///
/// Call `run()` once; it returns the final state. `stop()`, `pause()`, `state` and `statistics` may be used from
/// anywhere.
public final class BroadcastSession: Sendable {
    /// The configuration (settings clamped).
    public let configuration: BroadcastConfiguration
    /// The locked encode size.
    public let encodeSize: PixelSize
    /// The one encode's destinations, their queues and the statistics.
    public let engine: BroadcastEngine

    private let control = PipelineControl()
    private let pipeline: Locked<MediaPipeline?>

    /// Creates a session: locks the encode size, opens the sources and encoders and prepares the headers.
    /// - Parameters:
    ///   - configuration: settings and sources.
    ///   - outputs: where the stream goes (at least one).
    /// - Throws: `BroadcastError` (`.invalidConfiguration` or `.encoderFailed`).
    public init(configuration: BroadcastConfiguration, outputs: [BroadcastOutput]) throws(BroadcastError) {
        guard !outputs.isEmpty else {
            throw BroadcastError(.invalidConfiguration, "a broadcast needs at least one output: a URL or --record")
        }
        var configuration = configuration
        configuration.settings.clamp()
        let pipeline = try MediaPipeline(configuration: configuration, sources: try LinuxSources(configuration))
        self.configuration = configuration
        encodeSize = pipeline.encodeSize
        engine = try BroadcastEngine(outputs: outputs, headers: pipeline.headers,
                                     configuration: .init(settings: configuration.settings))
        self.pipeline = Locked(pipeline)
    }

    /// The outputs fed by the one encode.
    public var outputs: [BroadcastOutput] { engine.outputs }

    /// Metadata and sequence headers every connection gets first.
    public var headers: StreamHeaders { engine.headers }

    /// The current state (callable from anywhere, without waiting for the session).
    public var state: BroadcastState { engine.state }

    /// Every output change and statistics refresh from now on; the stream ends when the broadcast has.
    public func events() -> AsyncStream<BroadcastEngine.Event> { engine.events() }

    /// The latest statistics (refreshed every second).
    public var statistics: BroadcastStatistics { engine.statistics }

    /// The pipeline's frame pools and compositor counters.
    public var pipelineStatistics: PipelineStatistics { control.statistics }

    /// Ends the broadcast cleanly: the sources stop, the encoders flush, each output sends what it holds, unpublishes
    /// and closes. `run()` then returns `.ended(.stopped)`.
    public func stop() {
        control.stop(.stopped)
        engine.finish(.stopped)
    }

    /// Holds the media before its next frame: nothing is captured or encoded, the media thread sleeps until
    /// ``resume()`` (costing nothing), the connections stay up. The media clock holds too, so the stream resumes
    /// where it stopped.
    public func pause() {
        control.pause()
    }

    /// Lets the media go on after ``pause()``.
    public func resume() {
        control.resume()
    }

    /// Mutes the sound or lets it through again: while muted the sources keep running and silence is encoded in
    /// their place, so the stream goes on with its timing and nothing of the muted sound leaves the machine.
    public func setAudioMuted(_ muted: Bool) {
        control.setMuted(muted)
    }

    /// Hides the picture or shows it again: while hidden a black picture is encoded in its place (nothing is
    /// captured), so viewers keep the sound and the stream its timing.
    public func setVideoHidden(_ hidden: Bool) {
        control.setBlanked(hidden)
    }

    /// Runs the broadcast until the duration elapses, `stop()` is called, or it fails.
    /// - Returns: `.ended(reason)` or `.failed(error)`.
    public func run() async -> BroadcastState {
        guard let pipeline = pipeline.withLock({ value in defer { value = nil }; return value }) else {
            return state
        }
        let media = MediaThread(pipeline: pipeline, control: control, engine: engine)
        return await withTaskGroup(of: BroadcastState?.self) { group in
            group.addTask { await self.engine.run() }
            group.addTask {
                // The encoding side starts with every destination live, and stops when the engine ends on its own.
                guard await self.engine.waitUntilLive() else { return nil }
                media.start()
                await media.finished()
                let outcome = self.control.outcome
                if let failure = outcome.failure {
                    self.engine.fail(failure)
                } else {
                    self.engine.finish(outcome.reason ?? .stopped)
                }
                return nil
            }
            group.addTask {
                await self.engine.waitUntilEnding()
                self.control.stop(.stopped)
                return nil
            }
            var final = BroadcastState.idle
            for await state in group {
                if let state { final = state }
            }
            return final
        }
    }
}

/// The dedicated thread running a `MediaPipeline`, and an async wait for its end.
final class MediaThread: Sendable {
    /// Given to the thread once, when it starts.
    private let pipeline: Locked<MediaPipeline?>
    private let control: PipelineControl
    private let engine: BroadcastEngine
    private let done = OneShot<Void>()

    init(pipeline: MediaPipeline, control: PipelineControl, engine: BroadcastEngine) {
        self.pipeline = Locked(pipeline)
        self.control = control
        self.engine = engine
    }

    /// Starts the thread (call once).
    func start() {
        DetachedThread.start(name: "stream-media") { [self] in
            if let pipeline = pipeline.withLock({ value in defer { value = nil }; return value }) {
                pipeline.run(engine: engine, control: control)
            }
            done.fire()
        }
    }

    /// Returns once the pipeline has finished.
    func finished() async {
        _ = await done.wait()
    }
}
#endif
