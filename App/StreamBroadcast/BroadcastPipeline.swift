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
    private let screenScale: Double
    private let onEnd: @Sendable (BroadcastState) -> Void
    private var routing: SampleRouting
    private var frameGate: FrameRateGate
    private var clock = MediaClock()
    private var mixer: AudioMixer
    private var video: Video?
    /// Made with the first encoded frame: the headers need the encoder's parameter sets.
    private var engine: BroadcastEngine?
    private var counters = EncodeCounters()
    private var lastVideoPts: Int64 = -1
    private var audioBaseMilliseconds: UInt32?

    /// What is decided on the first screen frame and kept for the session.
    private struct Video {
        let lock: EncodeSizeLock
        let encoder: VideoToolboxEncoder
        let compositor: FrameCompositor?
        let bitrateKbps: Int
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
        mixer = AudioMixer(inputCount: routing.mixerInputs.count, channels: MemoryBudget.audioChannels)
        frameGate = FrameRateGate(framesPerSecond: settings.fps)
        screenScale = UITraitCollection.current.displayScale
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
                    counters.framesSkippedLate += 1
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
        // What the engine asks before each frame: a keyframe for a new connection, a bitrate that fits the links.
        if let engine {
            if engine.takeKeyframeRequest() { video.encoder.forceKeyframe() }
            if let kbps = engine.takeBitrateRequest() { try? video.encoder.setBitrate(kbps: kbps) }
        }
        let started = ContinuousClock.now
        let packets: [EncodedVideoPacket]
        do {
            packets = try video.encoder.encode(frame, pts: Int64(milliseconds))
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
        counters.videoWorkSeconds += started.duration(to: .now) / .seconds(1)
        for packet in packets {
            let current: BroadcastEngine
            if let engine {
                current = engine
            } else if let started = try startEngine(video) {
                current = started
            } else {
                return
            }
            let tag = FLVTag(video: .frame(AnnexB.lengthPrefixed(packet.data), isKeyFrame: packet.isKeyframe),
                             timestamp: UInt32(truncatingIfNeeded: packet.pts))
            current.submit(tag)
            counters.framesEncoded += 1
            counters.videoBytes += packet.data.count
        }
        counters.videoBitrateKbps = video.encoder.configuration.bitrateKbps
        counters.elapsedSeconds = Double(milliseconds) / 1000
        engine?.publish(counters)
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
        let compositor = needsCompositor
            ? FrameCompositor(lock: lock, settings: settings, screenScale: screenScale) : nil
        let video = Video(lock: lock, encoder: encoder, compositor: compositor,
                          bitrateKbps: effective.videoBitrateKbps)
        self.video = video
        return video
    }

    /// The first frame is encoded: with its parameter sets the headers exist, so the engine starts connecting
    /// (its queue holds this first keyframe meanwhile). Returns nil until the encoder has given its SPS and PPS.
    private func startEngine(_ video: Video) throws(Failure) -> BroadcastEngine? {
        guard let sets = video.encoder.parameterSets else { return nil }
        let headers: StreamHeaders
        do {
            headers = try StreamHeaders(
                width: video.lock.size.width, height: video.lock.size.height, framesPerSecond: settings.fps,
                videoBitrateKbps: video.bitrateKbps, audioBitrateKbps: settings.audioBitrateKbps,
                audioSampleRate: MemoryBudget.audioSampleRate, sps: sets.sps, pps: sets.pps,
                audioSpecificConfig: audioEncoder.audioSpecificConfig)
        } catch {
            throw Failure(failure: .encoderFailed(detail: "the encoders produced unusable headers: \(error)"))
        }
        let sink = RTMPSink(url: credentials.url, streamKey: credentials.streamKey, connector: NetworkConnector())
        let configuration = BroadcastEngine.Configuration(videoBitrateKbps: video.bitrateKbps,
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
        guard let input = routing.mixerInput(of: source) else { return }
        let converter = source == .app ? appAudio : micAudio
        mixer.append(converter.convert(sample), toInput: input)
        // Audio waits for the engine (the first video frame): there is no stream to put it in before.
        guard let engine else {
            while mixer.mix(frames: audioEncoder.frameSize) != nil {}
            return
        }
        if audioBaseMilliseconds == nil { audioBaseMilliseconds = clock.milliseconds(atSeconds: seconds) }
        let base = audioBaseMilliseconds ?? 0
        while let mixed = mixer.mix(frames: audioEncoder.frameSize) {
            let packets: [EncodedAudioPacket]
            do {
                packets = try audioEncoder.encode(interleaved: mixed)
            } catch {
                throw Failure(failure: .encoderFailed(detail: "\(error)"))
            }
            for packet in packets {
                let offset = UInt32(truncatingIfNeeded: max(packet.ptsMilliseconds, 0))
                engine.submit(FLVTag(audio: .frame(packet.data), timestamp: base &+ offset))
                counters.audioFramesEncoded += 1
                counters.audioBytes += packet.data.count
            }
        }
    }
}
