import AppLogic
import CoreMedia
import Encoders
import FLV
import ReplayKit
import StreamCore
import UIKit

/// One broadcast inside the extension: ReplayKit buffers → (composite) → VideoToolbox / AudioToolbox → FLV tags →
/// RTMP(S). Not thread-safe on its own: `SampleHandler` calls it under one lock.
/// Every decision is an AppLogic call.
final class BroadcastPipeline {
    /// Why the broadcast cannot start or go on.
    struct Failure: Error {
        let failure: BroadcastFailure
    }

    let credentials: StreamCredentials
    private let settings: StreamSettings
    private let publisher: RTMPNetworkPublisher
    private let facecam: FacecamCapture?
    private let audioEncoder: AudioToolboxAACEncoder
    private let appAudio: AudioFormatConverter
    private let micAudio: AudioFormatConverter
    private let screenScale: Double
    private var routing: SampleRouting
    private var frameGate: FrameRateGate
    private var clock = MediaClock()
    private var startGate = StreamStartGate()
    private var mixer: AudioMixer
    private var video: Video?
    private var bitrate: BitrateAdapter?
    private var lastVideoPts: Int64 = -1
    private var audioBaseMilliseconds: UInt32?

    /// What is decided on the first screen frame and kept for the session.
    private struct Video {
        let lock: EncodeSizeLock
        let encoder: VideoToolboxEncoder
        let compositor: FrameCompositor?
        let bitrateKbps: Int
    }

    /// Reads the settings snapshot and the credentials, re-applies the microphone, starts the facecam if it can run,
    /// opens the audio encoder and starts connecting.
    /// - Parameter events: the publisher's events (published, failed), on the network queue.
    init(events: @escaping @Sendable (RTMPNetworkPublisher.Event) -> Void) throws(Failure) {
        settings = SettingsStore.appGroup().load().settings
        let stored: StreamCredentials?
        do {
            stored = try KeychainAccess.credentialStore().load()
        } catch {
            throw Failure(failure: .unreadableCredentials(detail: "\(error)"))
        }
        guard let stored else { throw Failure(failure: .missingCredentials) }
        credentials = stored

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

        routing = SampleRouting(includeAppAudio: settings.includeAppAudio)
        mixer = AudioMixer(sources: routing.mixedSources)
        frameGate = FrameRateGate(framesPerSecond: settings.fps)
        screenScale = UITraitCollection.current.displayScale
        guard let appAudio = AudioFormatConverter(), let micAudio = AudioFormatConverter() else {
            throw Failure(failure: .encoderFailed(detail: "no audio converter"))
        }
        self.appAudio = appAudio
        self.micAudio = micAudio
        do {
            audioEncoder = try AudioToolboxAACEncoder(configuration: AudioEncoderConfiguration(
                sampleRate: AudioMixer.sampleRate, channels: AudioMixer.channels,
                bitrateKbps: settings.audioBitrateKbps))
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
        publisher = RTMPNetworkPublisher(
            credentials: stored,
            budget: SendBudget(videoBitrateKbps: settings.videoBitrateKbps,
                               audioBitrateKbps: settings.audioBitrateKbps),
            onEvent: events)
    }

    func start() {
        facecam?.start()
        publisher.start()
    }

    func stop() {
        routing.phase = .finished
        facecam?.stop()
        publisher.stop()
    }

    func pause(_ paused: Bool) {
        routing.phase = paused ? .paused : .running
    }

    /// The ingest accepted the publish.
    func published() {
        run(startGate.published(videoHeaderAvailable: video?.encoder.parameterSets != nil))
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
                guard let rendered = compositor.render(screen: pixels, camera: camera?.buffer) else { return }
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
        let packets: [EncodedVideoPacket]
        do {
            packets = try video.encoder.encode(frame, pts: Int64(milliseconds))
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
        for packet in packets { deliver(packet, encoder: video.encoder, seconds: seconds) }
        if let kbps = bitrate?.tick(atSeconds: seconds) { try? video.encoder.setBitrate(kbps: kbps) }
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
        if settings.adaptiveBitrate { bitrate = BitrateAdapter(targetKbps: effective.videoBitrateKbps) }
        return video
    }

    private func deliver(_ packet: EncodedVideoPacket, encoder: VideoToolboxEncoder, seconds: Double) {
        let admission = startGate.admit(.video(isKeyframe: packet.isKeyframe),
                                        videoHeaderAvailable: encoder.parameterSets != nil)
        run(admission.before)
        guard admission.send else { return }
        let tag = FLVTag(video: .frame(AnnexB.lengthPrefixed(packet.data), isKeyFrame: packet.isKeyframe),
                         timestamp: UInt32(truncatingIfNeeded: packet.pts))
        if case .drop(let requestKeyframe) = publisher.send(tag, as: .video(isKeyframe: packet.isKeyframe)) {
            if requestKeyframe { encoder.forceKeyframe() }
            congestion(atSeconds: seconds)
        }
    }

    // MARK: - Audio

    private func handleAudio(_ sample: CMSampleBuffer, source: SampleRouting.AudioSource,
                             seconds: Double) throws(Failure) {
        let converter = source == .app ? appAudio : micAudio
        mixer.append(converter.convert(sample), from: source)
        let mixed = mixer.takeMixed()
        guard !mixed.isEmpty else { return }
        if audioBaseMilliseconds == nil { audioBaseMilliseconds = clock.milliseconds(atSeconds: seconds) }
        let base = audioBaseMilliseconds ?? 0
        let packets: [EncodedAudioPacket]
        do {
            packets = try audioEncoder.encode(interleaved: mixed)
        } catch {
            throw Failure(failure: .encoderFailed(detail: "\(error)"))
        }
        for packet in packets {
            let admission = startGate.admit(.audio, videoHeaderAvailable: video?.encoder.parameterSets != nil)
            run(admission.before)
            guard admission.send else { continue }
            let offset = UInt32(truncatingIfNeeded: max(packet.ptsMilliseconds, 0))
            let tag = FLVTag(audio: .frame(packet.data), timestamp: base &+ offset)
            if case .drop = publisher.send(tag, as: .audio) { congestion(atSeconds: seconds) }
        }
    }

    /// The uplink could not keep up: with adaptive bitrate on, the encoder slows down (`BitrateAdapter`).
    private func congestion(atSeconds seconds: Double) {
        if let kbps = bitrate?.congestion(atSeconds: seconds) { try? video?.encoder.setBitrate(kbps: kbps) }
    }

    // MARK: - Stream start

    private func run(_ steps: [StreamStartGate.Step]) {
        for step in steps {
            switch step {
            case .metadata:
                publisher.sendMetadata(metadata)
            case .audioHeader:
                if let asc = try? AudioSpecificConfig(parsing: audioEncoder.audioSpecificConfig) {
                    publisher.send(FLVTag(audio: .sequenceHeader(asc), timestamp: 0), as: .header)
                }
            case .videoHeader:
                if let sets = video?.encoder.parameterSets,
                   let avc = try? AVCDecoderConfigurationRecord(sps: sets.sps, pps: sets.pps) {
                    publisher.send(FLVTag(video: .sequenceHeader(avc), timestamp: 0), as: .header)
                }
            case .requestKeyframe:
                video?.encoder.forceKeyframe()
            }
        }
    }

    private var metadata: FLVMetadata {
        FLVMetadata(width: video.map { Double($0.lock.size.width) }, height: video.map { Double($0.lock.size.height) },
                    videoDataRate: Double(video?.bitrateKbps ?? settings.videoBitrateKbps),
                    frameRate: Double(settings.fps), videoCodecID: FLVMetadata.avcVideoCodecID,
                    audioDataRate: Double(settings.audioBitrateKbps), audioSampleRate: Double(AudioMixer.sampleRate),
                    audioSampleSize: 16, stereo: true, audioCodecID: FLVMetadata.aacAudioCodecID, encoder: "Stream")
    }
}
