#if os(Linux)
import Capture
import Encoders
import Engine
import FLV
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Media
import Opus
import StreamCore

/// The real-time half of a session: sources → compositor → encoders → FLV tags → the engine, on its own thread.
///
/// Rendering, compositing and encoding are blocking C calls of several milliseconds per frame, and their deadlines
/// are hard: on the shared cooperative pool (one thread per core) anything else blocking the pool would make frames
/// late. So the pipeline runs a plain loop on its own thread, pacing video frames and audio buffers on one monotonic
/// clock. When it falls behind by a frame or more, it skips to the present and counts the skipped frames.
/// Not thread-safe: created by the session, then used only by the media thread.
final class MediaPipeline {
    let configuration: BroadcastConfiguration
    let encodeSize: PixelSize
    let headers: StreamHeaders
    private let screen: any ScreenSource
    private let camera: PiPCamera?
    private let audio: any AudioSource
    private let converter: EncodeFrameConverter
    private let compositor: PiPCompositor
    private let videoEncoder: any VideoEncoder
    private let audioEncoder: any AudioEncoder
    private var counters = EncodeCounters()
    private var nextKeyframeMilliseconds: Int64 = 0
    /// The black picture encoded while the video is hidden (made at the first such frame).
    private var blackFrame: VideoFrame?
    /// The silence encoded while the sound is muted (sized at the first such buffer).
    private var silence: [Float] = []

    /// x264 counts frames, so skipped frames would stretch its keyframe cadence: the pipeline forces keyframes on
    /// the clock instead and leaves x264's own interval at the longest it accepts.
    private static let encoderKeyframeIntervalSeconds = 60

    /// Takes the opened sources, opens the encoders and prepares the headers.
    init(configuration: BroadcastConfiguration, sources: LinuxSources) throws(BroadcastError) {
        let settings = configuration.settings
        self.configuration = configuration
        screen = sources.screen
        camera = sources.camera
        audio = sources.audio
        let size = screen.size
        guard LinuxSources.screenSizes.contains(size.width), LinuxSources.screenSizes.contains(size.height) else {
            throw BroadcastError(.invalidConfiguration, "the screen size \(size) must be between 64x64 and "
                                    + "8192x8192")
        }
        encodeSize = configuration.encodeSize(screenSize: size)
        converter = EncodeFrameConverter(width: encodeSize.width, height: encodeSize.height)
        compositor = PiPCompositor(configuration: configuration.pip)
        let videoConfiguration = VideoEncoderConfiguration(
            width: encodeSize.width, height: encodeSize.height, framesPerSecond: settings.fps,
            bitrateKbps: settings.videoBitrateKbps, keyframeIntervalSeconds: Self.encoderKeyframeIntervalSeconds)
        let audioConfiguration = AudioEncoderConfiguration(sampleRate: 48_000, channels: 2,
                                                           bitrateKbps: settings.audioBitrateKbps)
        let video: X264Encoder
        let audio: any AudioEncoder
        // The broadcaster's resident memory is bounded (an iOS extension dies past ~50 MB; the bench holds Linux to
        // the same): x264's huge pages alone would cost ~6 MB at 720p.
        X264Encoder.avoidHugePages()
        do {
            video = try X264Encoder(configuration: videoConfiguration, options: configuration.x264)
            switch configuration.audioCodec {
            case .aac: audio = try AACEncoder(configuration: audioConfiguration)
            case .opus: audio = try OpusAudioEncoder(configuration: audioConfiguration)
            }
        } catch {
            throw BroadcastError(.encoderFailed, "cannot open the encoders: \(error)")
        }
        videoEncoder = video
        audioEncoder = audio
        do {
            switch configuration.audioCodec {
            case .aac:
                headers = try StreamHeaders(
                    width: encodeSize.width, height: encodeSize.height, framesPerSecond: settings.fps,
                    videoBitrateKbps: settings.videoBitrateKbps, audioBitrateKbps: settings.audioBitrateKbps,
                    audioSampleRate: audioConfiguration.sampleRate, sps: video.sps, pps: video.pps,
                    audioSpecificConfig: audio.audioSpecificConfig)
            case .opus:
                headers = try StreamHeaders(
                    width: encodeSize.width, height: encodeSize.height, framesPerSecond: settings.fps,
                    videoBitrateKbps: settings.videoBitrateKbps, audioBitrateKbps: settings.audioBitrateKbps,
                    sps: video.sps, pps: video.pps, opusPreSkip: audio.primingSamples)
            }
        } catch {
            throw BroadcastError(.encoderFailed, "the encoders produced unusable headers: \(error)")
        }
        counters.videoBitrateKbps = settings.videoBitrateKbps
    }

    /// Runs until the duration is reached, a stop is asked, or an encoder fails; then flushes the encoders. A pause
    /// holds the loop (costing nothing) and the clock with it: media resumes where it stopped.
    func run(engine: BroadcastEngine, control: PipelineControl) {
        let clock = ContinuousClock()
        var start = clock.now
        engine.setClockOrigin(start)
        let fps = configuration.settings.fps
        let frameDuration = Duration.seconds(1) / fps
        let frameLimit = configuration.duration.map { Int(($0 / frameDuration).rounded(.up)) }
        let sampleRate = Int64(audioEncoder.configuration.sampleRate)
        let samplesPerBuffer = Int64(audio.samplesPerBuffer)
        let sampleLimit = configuration.duration.map { Int64(($0 / .seconds(1)) * Double(sampleRate)) }
        var videoIndex = 0
        var audioIndex = 0
        var videoDone = false
        var audioDone = false
        while !(videoDone && audioDone) && !control.shouldStop {
            if control.isPaused {
                let pausedAt = clock.now
                control.waitWhilePaused()
                start += pausedAt.duration(to: clock.now)
                engine.setClockOrigin(start)
                continue
            }
            let videoDeadline = start + frameDuration * videoIndex
            // An audio buffer is ready once its last sample has been "captured".
            let audioDeadline = start + .nanoseconds(
                (Int64(audioIndex) + 1) * samplesPerBuffer * 1_000_000_000 / sampleRate)
            let next = videoDone ? audioDeadline : audioDone ? videoDeadline : min(videoDeadline, audioDeadline)
            Self.sleep(until: next, clock: clock)
            let now = clock.now
            let switches = control.switches
            do throws(BroadcastError) {
                if !audioDone && now >= audioDeadline {
                    try encodeAudio(index: audioIndex, muted: switches.muted, engine: engine)
                    audioIndex += 1
                    if let sampleLimit, Int64(audioIndex) * samplesPerBuffer >= sampleLimit { audioDone = true }
                }
                if !videoDone && now >= videoDeadline {
                    // Behind by a whole frame or more: skip to the present instead of drifting.
                    let late = Int(((now - videoDeadline) / frameDuration).rounded(.down))
                    if late > 0 {
                        let skipped = frameLimit.map { min(late, max(0, $0 - videoIndex - 1)) } ?? late
                        counters.framesSkippedLate += skipped
                        videoIndex += skipped
                    }
                    if let kbps = engine.takeBitrateRequest(), kbps != videoEncoder.configuration.bitrateKbps {
                        try? videoEncoder.setBitrate(kbps: kbps)
                    }
                    let workStart = clock.now
                    try encodeVideo(index: videoIndex, fps: fps, blank: switches.blanked, engine: engine)
                    counters.videoWorkSeconds += (clock.now - workStart) / .seconds(1)
                    videoIndex += 1
                    if let frameLimit, videoIndex >= frameLimit { videoDone = true }
                }
            } catch {
                control.fail(error)
            }
            counters.elapsedSeconds = (clock.now - start) / .seconds(1)
            publish(to: engine, control: control)
        }
        if videoDone && audioDone { control.stop(.durationReached) }
        camera?.stop()
        flushEncoders(engine: engine)
        publish(to: engine, control: control)
    }

    /// Sleeps on the monotonic clock (not the wall clock), in slices so a stop is noticed within one frame.
    private static func sleep(until deadline: ContinuousClock.Instant, clock: ContinuousClock) {
        let remaining = deadline - clock.now
        guard remaining > .zero else { return }
        let slice = min(remaining, .milliseconds(50))
        let (seconds, attoseconds) = slice.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remainder = timespec()
        while nanosleep(&request, &remainder) != 0 && errno == EINTR { request = remainder }
    }

    private func publish(to engine: BroadcastEngine, control: PipelineControl) {
        var statistics = PipelineStatistics()
        statistics.screenPool = screen.statistics
        statistics.encodePool = converter.statistics
        statistics.cameraPool = camera?.statistics ?? PoolStatistics()
        statistics.framesComposited = compositor.statistics.composited
        statistics.frameBufferAllocations = statistics.screenPool.allocations + statistics.encodePool.allocations
            + statistics.cameraPool.allocations + converter.intermediateAllocations
            + compositor.statistics.bufferAllocations
        control.publish(statistics)
        counters.videoBitrateKbps = videoEncoder.configuration.bitrateKbps
        engine.publish(counters)
    }

    // MARK: Video

    private func encodeVideo(index: Int, fps: Int, blank: Bool, engine: BroadcastEngine) throws(BroadcastError) {
        let pts = Int64(index) * 1_000_000_000 / Int64(fps)
        if !blank, let camera, let cameraFrame = camera.frame(index: index, pts: pts) {
            compositor.cameraSlot.put(cameraFrame)
        }
        let milliseconds = Int64(index) * 1000 / Int64(fps)
        // A new connection or a flushed queue asks for one; otherwise keyframes follow the clock.
        let requested = engine.takeKeyframeRequest()
        let interval = Int64(configuration.keyframeIntervalSeconds) * 1000
        if requested {
            // A new connection starts here: the cadence restarts from this frame.
            videoEncoder.forceKeyframe()
            nextKeyframeMilliseconds = milliseconds + interval
        } else if milliseconds >= nextKeyframeMilliseconds {
            // On the 2 s grid even when the frame on the grid point was skipped.
            videoEncoder.forceKeyframe()
            while nextKeyframeMilliseconds <= milliseconds { nextKeyframeMilliseconds += interval }
        }
        if blank {
            try encode(black(), milliseconds: milliseconds, engine: engine)
            return
        }
        guard let screenFrame = try screen.frame(index: index, pts: pts) else {
            counters.framesSkippedLate += 1
            return
        }
        // The converted frame must reach the compositor as its only reference: an Optional left alive beside an
        // unwrapped copy would make the compositor copy 1.4 MB (at 720p) into a second pool before drawing.
        let converted: VideoFrame
        do {
            guard let frame = try converter.convert(screenFrame) else {
                counters.framesSkippedLate += 1
                return
            }
            converted = frame
        } catch {
            throw BroadcastError(.encoderFailed, "cannot convert the screen frame: \(error)")
        }
        try encode(compositor.composite(consume converted), milliseconds: milliseconds, engine: engine)
    }

    /// Encodes one picture and hands its packets to the engine.
    private func encode(_ picture: VideoFrame, milliseconds: Int64, engine: BroadcastEngine) throws(BroadcastError) {
        let packets: [EncodedVideoPacket]
        do {
            packets = try picture.withUnsafePlanes { planes in
                try videoEncoder.encode(I420Planes(
                    width: picture.width, height: picture.height,
                    y: planes.baseAddress(ofPlane: 0), yStride: planes.stride(ofPlane: 0),
                    u: planes.baseAddress(ofPlane: 1), uStride: planes.stride(ofPlane: 1),
                    v: planes.baseAddress(ofPlane: 2), vStride: planes.stride(ofPlane: 2)), pts: milliseconds)
            }
        } catch {
            throw BroadcastError(.encoderFailed, "the video encoder failed: \(error)")
        }
        submit(packets, to: engine)
    }

    private func submit(_ packets: [EncodedVideoPacket], to engine: BroadcastEngine) {
        for packet in packets {
            let payload = packet.framing == .lengthPrefixed ? packet.data : AnnexB.lengthPrefixed(packet.data)
            let body = FLVVideoTagBody.frame(payload, isKeyFrame: packet.isKeyframe,
                                             compositionTime: Int32(clamping: packet.pts - packet.dts))
            let tag = FLVTag(video: body, timestamp: UInt32(truncatingIfNeeded: max(0, packet.dts)))
            counters.videoBytes += packet.data.count
            counters.framesEncoded += 1
            engine.submit(tag)
        }
    }

    /// A black picture at the encode size (I420 limited range: Y 16, U and V 128), made once.
    private func black() -> VideoFrame {
        if let blackFrame { return blackFrame }
        var frame = VideoFrame(layout: FrameLayout(format: .i420, width: encodeSize.width, height: encodeSize.height))
        frame.withUnsafeMutablePlanes { planes in
            for plane in 0..<3 {
                let bytes = planes.stride(ofPlane: plane) * planes.layout.rows(ofPlane: plane)
                planes.baseAddress(ofPlane: plane).update(repeating: plane == 0 ? 16 : 128, count: bytes)
            }
        }
        blackFrame = frame
        return frame
    }

    // MARK: Audio

    private func encodeAudio(index: Int, muted: Bool, engine: BroadcastEngine) throws(BroadcastError) {
        // The source is read even when muted, so its clock and buffers stay where they would be.
        guard let buffer = audio.nextBuffer(index: index) else { return }
        do {
            let packets = try buffer.withUnsafeBytes { bytes in
                let samples = bytes.bindMemory(to: Float.self)
                guard muted else { return try audioEncoder.encode(interleaved: samples) }
                if silence.count != samples.count { silence = [Float](repeating: 0, count: samples.count) }
                return try silence.withUnsafeBufferPointer { try audioEncoder.encode(interleaved: $0) }
            }
            submit(packets, to: engine)
        } catch {
            throw BroadcastError(.encoderFailed, "the audio encoder failed: \(error)")
        }
    }

    private func submit(_ packets: [EncodedAudioPacket], to engine: BroadcastEngine) {
        let priming = Int64(audioEncoder.primingSamples)
        for packet in packets {
            // The first packet starts `priming` samples before zero; shift so the stream starts at 0 ms.
            let milliseconds = (packet.pts + priming) * 1000 / Int64(packet.sampleRate)
            let timestamp = UInt32(truncatingIfNeeded: max(0, milliseconds))
            let tag = configuration.audioCodec == .opus ? FLVTag(opus: .packet(packet.data), timestamp: timestamp)
                : FLVTag(audio: .frame(packet.data), timestamp: timestamp)
            counters.audioBytes += packet.data.count
            counters.audioFramesEncoded += 1
            engine.submit(tag)
        }
    }

    private func flushEncoders(engine: BroadcastEngine) {
        do {
            submit(try videoEncoder.flush(), to: engine)
            submit(try audioEncoder.flush(), to: engine)
        } catch {
            // The stream is ending anyway; what was sent stays valid.
        }
    }
}
#endif
