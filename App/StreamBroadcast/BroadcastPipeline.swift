import AppLogic
import CoreMedia
import Encoders
import Engine
import OSLog
import ReplayKit
import StreamCore
import UIKit

/// One broadcast inside the extension: ReplayKit buffers → (composite) → VideoToolbox / AudioToolbox → the engine,
/// which runs the same outputs as `stream broadcast`: the send queue and its keyframe-aware drops, the reconnect
/// schedule, adaptive bitrate, statistics and status. Not thread-safe on its own: `SampleHandler` calls it under one
/// lock. Every decision is an AppLogic or Engine call; the encode itself is AppLogic's `EncodeSession`.
final class BroadcastPipeline {
    let credentials: StreamCredentials
    private let settings: StreamSettings
    private let facecam: FacecamCapture?
    private let session: EncodeSession<VideoToolboxEncoder, AudioToolboxAACEncoder>
    private let appAudio: AudioFormatConverter
    private let micAudio: AudioFormatConverter
    private var routing: SampleRouting
    /// What is decided on the first screen frame and kept for the session.
    private var video: Video?

    private struct Video {
        let lock: EncodeSizeLock
        let compositor: FrameCompositor?
    }

    /// Reads the settings snapshot and the credentials, re-applies the microphone, starts the facecam if it can run
    /// and opens the audio encoder.
    /// - Parameter onEnd: the broadcast's final state (failed, or ended), from the engine's task.
    init(onEnd: @escaping @Sendable (BroadcastState) -> Void) throws(BroadcastFailure) {
        settings = SettingsStore.appGroup().load().settings
        let stored: StreamCredentials?
        do {
            stored = try KeychainAccess.credentialStore().load()
        } catch {
            throw .unreadableCredentials(detail: "\(error)")
        }
        // This build links no WebRTC stack (OpenSSL's DTLS and SRTP, libopus have no iOS build here): WHIP chosen
        // in the settings is refused with a message instead of publishing over RTMP behind the user's back.
        switch PublishPlan.decide(settings: settings, credentials: stored, webRTCAvailable: false) {
        case .rtmp(let chosen): credentials = chosen
        case .whip: throw .webRTCUnavailable
        case .refused(let failure): throw failure
        }

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
        guard let appAudio = AudioFormatConverter(), let micAudio = AudioFormatConverter() else {
            throw .encoderFailed(detail: "no audio converter")
        }
        self.appAudio = appAudio
        self.micAudio = micAudio
        let audioEncoder: AudioToolboxAACEncoder
        do {
            audioEncoder = try AudioToolboxAACEncoder(configuration: MemoryBudget.audioConfiguration(settings))
        } catch {
            throw .encoderFailed(detail: "\(error)")
        }
        session = EncodeSession(
            settings: settings, audio: audioEncoder, mixerInputs: routing.mixerInputs.count,
            destination: .init(url: credentials.url, streamKey: credentials.streamKey, connector: NetworkConnector())
        ) { engine in BroadcastPipeline.run(engine, onEnd: onEnd) }
    }

    func start() {
        facecam?.start()
    }

    func stop() {
        routing.phase = .finished
        facecam?.stop()
        session.finish()
    }

    func pause(_ paused: Bool) {
        routing.phase = paused ? .paused : .running
    }

    /// Routes one ReplayKit buffer.
    func handle(_ sample: CMSampleBuffer, kind: SampleBufferKind) throws(BroadcastFailure) {
        let seconds = CMSampleBufferGetPresentationTimeStamp(sample).seconds
        switch kind {
        case .video:
            try handleVideo(sample, seconds: seconds)
        case .audioApp, .audioMic:
            // Before the first screen frame there is no stream to put the sound in.
            guard case .mix(let source) = routing.route(kind), let input = routing.mixerInput(of: source),
                  session.isEncoding else { return }
            (source == .app ? appAudio : micAudio).convert(sample) { session.appendSound($0, toInput: input) }
            try session.encodeSound(atSeconds: seconds)
        }
    }

    private func handleVideo(_ sample: CMSampleBuffer, seconds: Double) throws(BroadcastFailure) {
        guard routing.phase == .running, session.admits(atSeconds: seconds),
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
                    session.driver?.counters.framesSkippedLate += 1
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
        guard let pts = session.pictureTime(atSeconds: seconds) else { return }
        try session.encodePicture(pts: pts) { try $0.encode(frame, pts: $1) }
    }

    /// Locks size and orientation from the first frame, at the quality the memory budget allows, and opens the
    /// video encoder at that size.
    private func lockVideo(_ sample: CMSampleBuffer, pixels: CVPixelBuffer) throws(BroadcastFailure) -> Video {
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
        do {
            session.begin(video: try VideoToolboxEncoder(configuration: VideoEncoderConfiguration(
                width: lock.size.width, height: lock.size.height, framesPerSecond: settings.fps,
                bitrateKbps: effective.videoBitrateKbps)))
        } catch {
            throw .encoderFailed(detail: "\(error)")
        }
        // The scale comes from the frame's size: an extension has no screen to ask, and
        // `UITraitCollection.current.displayScale` is 0 there (issue 35 defect 7), which made the 24 pt inset 0 px.
        let compositor = facecam != nil || lock.needsRotation
            ? FrameCompositor(lock: lock, settings: settings, screenScale: lock.estimatedScreenScale) : nil
        let video = Video(lock: lock, compositor: compositor)
        self.video = video
        return video
    }

    /// Runs the engine to its end, writing the same lines `stream broadcast` prints to the system log meanwhile:
    /// connection changes at once, the status line every five seconds.
    private static func run(_ engine: BroadcastEngine, onEnd: @escaping @Sendable (BroadcastState) -> Void) {
        // Subscribed before the engine runs, so that no change is missed.
        let events = engine.events()
        Task {
            let final = await withTaskGroup(of: BroadcastState?.self) { group in
                group.addTask { await engine.run() }
                group.addTask {
                    let logger = Logger(subsystem: "com.joeblau.Stream.Broadcast", category: "broadcast")
                    var lines = StatusLines(labels: engine.outputs.map(\.sink.label), statusEvery: 5)
                    for await event in events {
                        for line in lines.lines(for: event, state: engine.state,
                                                statuses: engine.outputs.map(\.status)) {
                            switch line {
                            case .connection(let text): logger.notice("\(text, privacy: .public)")
                            case .status(let text, _): logger.info("\(text, privacy: .public)")
                            }
                        }
                    }
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
    }
}
