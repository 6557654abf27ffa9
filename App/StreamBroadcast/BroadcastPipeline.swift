import AppLogic
import CoreMedia
import Encoders
import Engine
import FLV
import Media
import OSLog
import ReplayKit
import StreamCore
import UIKit

/// One broadcast inside the extension: ReplayKit buffers → (composite) → VideoToolbox / AudioToolbox → FLV tags →
/// the engine, which runs the same outputs as `stream broadcast`: the send queue and its keyframe-aware drops, the
/// reconnect schedule, adaptive bitrate, statistics and status. Not thread-safe on its own: `SampleHandler` calls
/// it under one lock. Every decision is an AppLogic or Engine call.
final class BroadcastPipeline {
    /// Why the broadcast cannot start or go on.
    struct Failure: Error {
        let failure: BroadcastFailure
    }

    let credentials: StreamCredentials
    private let settings: StreamSettings
    private let facecam: FacecamCapture?
    private let audioEncoder: AudioToolboxAACEncoder
    private let appAudio: AudioFormatConverter
    private let micAudio: AudioFormatConverter
    private let onEnd: @Sendable (BroadcastState) -> Void
    private var routing: SampleRouting
    private var frameGate: FrameRateGate
    private var clock = MediaClock()
    private var video: Video?
    /// Made with the first encoded frame: the headers need the encoder's parameter sets.
    private var engine: BroadcastEngine?
    private var lastVideoPts: Int64 = -1

    /// What is decided on the first screen frame and kept for the session.
    private struct Video {
        let lock: EncodeSizeLock
        /// The encode loop (the engine's, shared with the app's camera publisher) over this session's encoders.
        let driver: EncodeDriver<VideoToolboxEncoder, AudioToolboxAACEncoder>
        let compositor: FrameCompositor?
    }

    /// Reads the settings snapshot and the credentials, re-applies the microphone, starts the facecam if it can run
    /// and opens the audio encoder.
    /// - Parameter onEnd: the broadcast's final state (failed, or ended), from the engine's task.
    init(onEnd: @escaping @Sendable (BroadcastState) -> Void) throws(Failure) {
        settings = SettingsStore.appGroup().load().settings
        let stored: StreamCredentials?
        do {
            stored = try KeychainAccess.credentialStore().load()
        } catch {
            throw Failure(failure: .unreadableCredentials(detail: "\(error)"))
        }
        // This build links no WebRTC stack (OpenSSL DTLS, libsrtp2, libopus have no iOS build here): WHIP chosen
        // in the settings is refused with a message instead of publishing over RTMP behind the user's back.
        switch PublishPlan.decide(settings: settings, credentials: stored, webRTCAvailable: false) {
        case .rtmp(let chosen): credentials = chosen
        case .whip: throw Failure(failure: .webRTCUnavailable)
        case .refused(let failure): throw Failure(failure: failure)
        }
        self.onEnd = onEnd

        _ = try? AudioSessionConfigurator.activate()
        AudioSessionConfigurator.applyPreferredInput(savedID: settings.audioInputID)

        let plan = FacecamPlan(pipEnabled: settings.pipEnabled, front: settings.cameraPosition == .front,
                               multitaskingCameraAccessSupported: CameraAccess.multitaskingSupported,
                               authorization: CameraAccess.authorization)
        if case .startCamera(let position) = plan {
            facecam = FacecamCapture(position: position)
        } else {
            facecam = nil
        }

        routing = SampleRouting(includeAppAudio: settings.includeAppAudio,
                                includeMicrophone: settings.capturesMicrophone)
        frameGate = FrameRateGate(framesPerSecond: settings.fps)
        guard let appAudio = AudioFormatConverter(), let micAudio = AudioFormatConverter() else {
            throw Failure(failure: .encoderFailed(detail: "no audio converter"))
        }
        self.appAudio = appAudio
        self.micAudio = micAudio
        do {
            audioEncoder = try AudioToolboxAACEncoder(configuration: AudioEncoderConfiguration(
                sampleRate: MemoryBudget.audioSampleRate, channels: MemoryBudget.audioChannels,
                bitrateKbps: settings.audioBitrateKbps))
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
    }

    func start() {
        facecam?.start()
    }

    func stop() {
        routing.phase = .finished
        facecam?.stop()
        engine?.finish(.stopped)
    }

    func pause(_ paused: Bool) {
        routing.phase = paused ? .paused : .running
    }

    /// Routes one ReplayKit buffer.
    func handle(_ sample: CMSampleBuffer, kind: SampleBufferKind) throws(Failure) {
        let seconds = CMSampleBufferGetPresentationTimeStamp(sample).seconds
        switch kind {
        case .video:
            try handleVideo(sample, seconds: seconds)
        case .audioApp, .audioMic:
            guard case .mix(let source) = routing.route(kind) else { return }
            try handleAudio(sample, source: source, seconds: seconds)
        }
    }

    // MARK: - Video

    private func handleVideo(_ sample: CMSampleBuffer, seconds: Double) throws(Failure) {
        guard routing.phase == .running, frameGate.shouldKeep(atSeconds: seconds),
              let pixels = CMSampleBufferGetImageBuffer(sample) else { return }
        let video: Video
        if let locked = self.video {
            video = locked
        } else {
            video = try lockVideo(sample, pixels: pixels)
        }
        let camera = facecam?.latestFrame(now: seconds)
        routing.facecamActive = camera != nil
        routing.needsRotation = video.lock.needsRotation
        let frame: CVPixelBuffer
        switch routing.route(.video) {
        case .composite:
            if let compositor = video.compositor {
                // A nil result means the pool is exhausted: skip this frame rather than allocate.
                guard let rendered = compositor.render(screen: pixels, camera: camera?.buffer) else {
                    video.driver.counters.framesSkippedLate += 1
                    return
                }
                frame = rendered
            } else {
                frame = pixels   // no Metal device: the screen goes out as it is
            }
        case .passthrough:
            frame = pixels
        case .mix, .drop:
            return
        }
        guard let milliseconds = clock.milliseconds(atSeconds: seconds), Int64(milliseconds) > lastVideoPts else {
            return
        }
        lastVideoPts = Int64(milliseconds)
        let driver = video.driver
        driver.counters.elapsedSeconds = Double(milliseconds) / 1000
        let started = ContinuousClock.now
        do {
            try driver.encodePicture { try $0.encode(frame, pts: Int64(milliseconds)) }
        } catch let failure as Failure {
            throw failure   // the engine could not be made from the encoder's headers
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
        driver.counters.videoWorkSeconds += started.duration(to: .now) / .seconds(1)
    }

    /// Locks size and orientation from the first frame, at the quality the memory budget allows.
    private func lockVideo(_ sample: CMSampleBuffer, pixels: CVPixelBuffer) throws(Failure) -> Video {
        let attachment = CMGetAttachment(sample, key: RPVideoSampleOrientationKey as CFString,
                                         attachmentModeOut: nil) as? NSNumber
        let orientation = ImageOrientation(attachment: attachment?.uint32Value)
        let width = CVPixelBufferGetWidth(pixels)
        let height = CVPixelBufferGetHeight(pixels)
        let screen = EncodeSizeLock(bufferWidth: width, bufferHeight: height, orientation: orientation,
                                    quality: settings.quality).screen
        let plan = MemoryBudget.plan(screen: screen, settings: settings, facecam: facecam != nil)
        var effective = settings
        effective.changeQuality(to: plan.quality)
        let lock = EncodeSizeLock(bufferWidth: width, bufferHeight: height, orientation: orientation,
                                  quality: plan.quality)
        let encoder: VideoToolboxEncoder
        do {
            encoder = try VideoToolboxEncoder(configuration: VideoEncoderConfiguration(
                width: lock.size.width, height: lock.size.height, framesPerSecond: settings.fps,
                bitrateKbps: effective.videoBitrateKbps))
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
        let needsCompositor = facecam != nil || lock.needsRotation
        // The scale comes from the frame's size: an extension has no screen to ask, and
        // `UITraitCollection.current.displayScale` is 0 there (issue 35 defect 7), which made the 24 pt inset 0 px.
        let compositor = needsCompositor
            ? FrameCompositor(lock: lock, settings: settings, screenScale: lock.estimatedScreenScale) : nil
        let bitrateKbps = effective.videoBitrateKbps
        // Unowned: the driver is this pipeline's, and calls back only inside its `encodePicture`.
        let driver = EncodeDriver(video: encoder, audio: audioEncoder, mixerInputs: routing.mixerInputs.count) {
            [unowned self] sets in try self.startEngine(sets, lock: lock, bitrateKbps: bitrateKbps)
        }
        let video = Video(lock: lock, driver: driver, compositor: compositor)
        self.video = video
        return video
    }

    /// The first frame is encoded: with its parameter sets the headers exist, so the engine starts connecting
    /// (its queue holds this first keyframe meanwhile).
    private func startEngine(_ sets: H264ParameterSets, lock: EncodeSizeLock,
                             bitrateKbps: Int) throws(Failure) -> BroadcastEngine? {
        let headers: StreamHeaders
        do {
            headers = try StreamHeaders(
                width: lock.size.width, height: lock.size.height, framesPerSecond: settings.fps,
                videoBitrateKbps: bitrateKbps, audioBitrateKbps: settings.audioBitrateKbps,
                audioSampleRate: MemoryBudget.audioSampleRate, sps: sets.sps, pps: sets.pps,
                audioSpecificConfig: audioEncoder.audioSpecificConfig)
        } catch {
            throw Failure(failure: .encoderFailed(detail: "the encoders produced unusable headers: \(error)"))
        }
        let sink = RTMPSink(url: credentials.url, streamKey: credentials.streamKey, connector: NetworkConnector())
        let configuration = BroadcastEngine.Configuration(videoBitrateKbps: bitrateKbps,
                                                          audioBitrateKbps: settings.audioBitrateKbps,
                                                          adaptiveBitrate: settings.adaptiveBitrate)
        guard let engine = try? BroadcastEngine(outputs: [BroadcastOutput(sink: sink)], headers: headers,
                                                configuration: configuration) else { return nil }
        // Timestamp 0 is the first buffer's time on the host clock (MediaClock's origin): now, minus this frame's.
        engine.setClockOrigin(ContinuousClock.now - .milliseconds(max(0, lastVideoPts)))
        self.engine = engine
        let onEnd = self.onEnd
        // Subscribed before the engine runs, so that no change is missed.
        let events = engine.events()
        Task {
            let final = await withTaskGroup(of: BroadcastState?.self) { group in
                group.addTask { await engine.run() }
                group.addTask {
                    await Self.log(events, engine: engine)
                    return nil
                }
                var final = BroadcastState.idle
                for await state in group {
                    if let state { final = state }
                }
                return final
            }
            onEnd(final)
        }
        return engine
    }

    /// The same lines `stream broadcast` prints, in the system log: connection changes at once, the status line
    /// every five seconds.
    private static func log(_ events: AsyncStream<BroadcastEngine.Event>, engine: BroadcastEngine) async {
        let logger = Logger(subsystem: "com.joeblau.Stream.Broadcast", category: "broadcast")
        var lines = StatusLines(labels: engine.outputs.map(\.sink.label), statusEvery: 5)
        for await event in events {
            for line in lines.lines(for: event, state: engine.state, statuses: engine.outputs.map(\.status)) {
                switch line {
                case .connection(let text): logger.notice("\(text, privacy: .public)")
                case .status(let text, _): logger.info("\(text, privacy: .public)")
                }
            }
        }
    }

    // MARK: - Audio

    private func handleAudio(_ sample: CMSampleBuffer, source: SampleRouting.AudioSource,
                             seconds: Double) throws(Failure) {
        // Before the first screen frame there is no stream to put the sound in (the driver drops it until the engine
        // exists, too).
        guard let input = routing.mixerInput(of: source), let driver = video?.driver else { return }
        let converter = source == .app ? appAudio : micAudio
        converter.convert(sample) { driver.append($0, toInput: input) }
        do {
            try driver.encodeSound(startingAt: clock.milliseconds(atSeconds: seconds))
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
    }
}
