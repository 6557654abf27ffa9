#if os(Linux)
import Encoders
import FLV
import Foundation
import Media
import StreamCore
import Synchronization

/// A live broadcast: test sources → PiP compositor → H.264/AAC encoders → FLV tags → one or more outputs.
///
/// - The encode size is locked when the session is created, from the screen's size and the quality.
/// - Audio and video are stamped on one monotonic clock that starts when every output is first live, so they stay
///   in sync. Video is paced in real time: when encoding falls behind, frames are skipped and counted, never drifted.
/// - Each output has its own bounded send queue and reconnects on its own (see `BroadcastOutput`).
/// - Adaptive bitrate (a setting): the encoder's bitrate follows the slowest network output's throughput down and
///   climbs back gradually.
///
/// Call `run()` once; it returns the final state. `stop()`, `state` and `statistics` may be used from anywhere.
public actor BroadcastSession {
    /// The configuration.
    public nonisolated let configuration: BroadcastConfiguration
    /// The locked encode size.
    public nonisolated let encodeSize: PixelSize
    /// The outputs fed by the one encode.
    public nonisolated let outputs: [BroadcastOutput]
    /// Metadata and sequence headers every connection gets first.
    public nonisolated let headers: StreamHeaders

    private struct Monitor {
        var state: BroadcastState = .idle
        var statistics = BroadcastStatistics()
        var stopReason: BroadcastEndReason?
        var failure: BroadcastError?
    }

    private nonisolated let monitor = Mutex(Monitor())
    private nonisolated let executor = MediaThreadExecutor(name: "stream-broadcast")
    private let screen: TestScreenSource
    private let camera: (any CameraSource)?
    private let tone: TestToneSource
    private let converter: EncodeFrameConverter
    private let compositor: PiPCompositor
    private let videoEncoder: any VideoEncoder
    private let audioEncoder: any AudioEncoder
    private var adaptive: [Int: AdaptiveBitrate] = [:]
    private var lastHanded: [Int: (bytes: Int, queued: Int)] = [:]
    private let clock = ContinuousClock()
    private var start = ContinuousClock.now
    private var videoBytes = 0
    private var audioBytes = 0
    private var framesEncoded = 0
    private var audioFramesEncoded = 0
    private var framesSkippedLate = 0
    private var nextKeyframeMilliseconds: Int64 = 0

    /// x264 counts frames, so skipped frames would stretch its keyframe cadence: the session forces keyframes on
    /// the clock instead and leaves x264's own interval at the longest it accepts.
    private static let encoderKeyframeIntervalSeconds = 60

    /// Creates a session: locks the encode size, opens the encoders and prepares the headers.
    /// - Parameters:
    ///   - configuration: settings and sources.
    ///   - outputs: where the stream goes (at least one).
    /// - Throws: `BroadcastError` (`.invalidConfiguration` or `.encoderFailed`).
    public init(configuration: BroadcastConfiguration, outputs: [BroadcastOutput]) throws(BroadcastError) {
        guard !outputs.isEmpty else {
            throw BroadcastError(.invalidConfiguration, "a broadcast needs at least one output: a URL or --record")
        }
        var settings = configuration.settings
        settings.clamp()
        var configuration = configuration
        configuration.settings = settings
        let size = configuration.screenSize
        guard (64...8192).contains(size.width), (64...8192).contains(size.height) else {
            throw BroadcastError(.invalidConfiguration, "the test screen size \(size) must be between 64x64 and "
                                    + "8192x8192")
        }
        self.configuration = configuration
        self.outputs = outputs
        encodeSize = configuration.encodeSize
        screen = TestScreenSource(size: size)
        if settings.pipEnabled {
            switch configuration.camera {
            case .testPattern: camera = TestCameraSource()
            case .y4m(let path): camera = try Y4MCameraSource(path: path)
            }
        } else {
            camera = nil
        }
        tone = TestToneSource(frequency: configuration.toneFrequency)
        converter = EncodeFrameConverter(width: encodeSize.width, height: encodeSize.height)
        compositor = PiPCompositor(configuration: configuration.pip)
        let videoConfiguration = VideoEncoderConfiguration(
            width: encodeSize.width, height: encodeSize.height, framesPerSecond: settings.fps,
            bitrateKbps: settings.videoBitrateKbps, keyframeIntervalSeconds: Self.encoderKeyframeIntervalSeconds)
        let audioConfiguration = AudioEncoderConfiguration(sampleRate: 48_000, channels: 2,
                                                           bitrateKbps: settings.audioBitrateKbps)
        let video: X264Encoder
        let audio: AACEncoder
        do {
            video = try X264Encoder(configuration: videoConfiguration, options: configuration.x264)
            audio = try AACEncoder(configuration: audioConfiguration)
        } catch {
            throw BroadcastError(.encoderFailed, "cannot open the encoders: \(error)")
        }
        videoEncoder = video
        audioEncoder = audio
        do {
            let avc = try AVCDecoderConfigurationRecord(sps: video.sps, pps: video.pps)
            let asc = try AudioSpecificConfig(parsing: audio.audioSpecificConfig)
            headers = StreamHeaders(
                metadata: FLVMetadata(
                    width: Double(encodeSize.width), height: Double(encodeSize.height),
                    videoDataRate: Double(settings.videoBitrateKbps), frameRate: Double(settings.fps),
                    videoCodecID: FLVMetadata.avcVideoCodecID, audioDataRate: Double(settings.audioBitrateKbps),
                    audioSampleRate: 48_000, audioSampleSize: 16, stereo: true,
                    audioCodecID: FLVMetadata.aacAudioCodecID, encoder: "Stream"),
                videoSequenceHeader: FLVTag(video: .sequenceHeader(avc), timestamp: 0),
                audioSequenceHeader: FLVTag(audio: .sequenceHeader(asc), timestamp: 0))
        } catch {
            throw BroadcastError(.encoderFailed, "the encoders produced unusable headers: \(error)")
        }
        if settings.adaptiveBitrate {
            for (index, output) in outputs.enumerated() where output.sink.isNetwork {
                adaptive[index] = AdaptiveBitrate(configuration: .init(targetKbps: settings.videoBitrateKbps))
            }
        }
        monitor.withLock { $0.statistics.currentVideoBitrateKbps = settings.videoBitrateKbps }
    }

    /// The session's code runs on its own media thread (see `MediaThreadExecutor`), not on the shared pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    deinit {
        executor.shutDown()
    }

    /// The current state (callable from anywhere, without waiting for the session).
    public nonisolated var state: BroadcastState { monitor.withLock { $0.state } }

    /// The latest statistics (refreshed every second).
    public nonisolated var statistics: BroadcastStatistics { monitor.withLock { $0.statistics } }

    /// Ends the broadcast cleanly: the sources stop, the encoders flush, each output sends what it holds, unpublishes
    /// and closes. `run()` then returns `.ended(.stopped)`.
    public nonisolated func stop() {
        monitor.withLock { value in
            if value.stopReason == nil { value.stopReason = .stopped }
        }
    }

    private nonisolated var shouldStop: Bool {
        monitor.withLock { $0.stopReason != nil || $0.failure != nil }
    }

    private nonisolated func fail(_ error: BroadcastError) {
        monitor.withLock { value in
            if value.failure == nil { value.failure = error }
        }
    }

    private nonisolated func setState(_ state: BroadcastState) {
        monitor.withLock { $0.state = state }
    }

    /// Runs the broadcast until the duration elapses, `stop()` is called, or it fails.
    /// - Returns: `.ended(reason)` or `.failed(error)`.
    public func run() async -> BroadcastState {
        guard state == .idle else { return state }
        setState(.connecting)
        let headers = self.headers
        await withTaskGroup(of: Void.self) { group in
            for output in outputs {
                group.addTask { await output.run(headers: headers) }
            }
            if await waitForOutputsLive() {
                start = clock.now
                setState(.live)
                await withTaskGroup(of: Void.self) { media in
                    media.addTask { await self.videoLoop() }
                    media.addTask { await self.audioLoop() }
                    media.addTask { await self.monitorLoop() }
                }
                flushEncoders()
            }
            for output in outputs { output.finish() }
            await group.waitForAll()
        }
        refreshStatistics()
        let final: BroadcastState = monitor.withLock { value in
            if let failure = value.failure { return .failed(failure) }
            return .ended(value.stopReason ?? .stopped)
        }
        setState(final)
        return final
    }

    /// Waits until every output is live (true) or one failed or a stop came first (false).
    private func waitForOutputsLive() async -> Bool {
        while true {
            let states = outputs.map(\.status.state)
            if let failure = states.lazy.compactMap({ state -> BroadcastError? in
                if case .failed(let error) = state { return error }
                return nil
            }).first {
                fail(failure)
                return false
            }
            if states.allSatisfy({ $0 == .live }) { return true }
            if shouldStop { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private var elapsed: Duration { clock.now - start }

    // MARK: Video

    private func videoLoop() async {
        let fps = configuration.settings.fps
        let frameDuration = Duration.seconds(1) / fps
        let frameLimit = configuration.duration.map { Int(($0 / frameDuration).rounded(.up)) }
        var index = 0
        while !shouldStop {
            if let frameLimit, index >= frameLimit {
                monitor.withLock { value in
                    if value.stopReason == nil { value.stopReason = .durationReached }
                }
                return
            }
            let deadline = start + frameDuration * index
            try? await clock.sleep(until: deadline)
            // Behind by a whole frame or more: skip to the present instead of drifting.
            let late = Int(((clock.now - deadline) / frameDuration).rounded(.down))
            if late > 0 {
                let skipped = frameLimit.map { min(late, max(0, $0 - index - 1)) } ?? late
                framesSkippedLate += skipped
                index += skipped
            }
            do throws(BroadcastError) {
                try encodeVideo(index: index, fps: fps)
            } catch {
                fail(error)
                return
            }
            index += 1
        }
    }

    private func encodeVideo(index: Int, fps: Int) throws(BroadcastError) {
        let pts = Int64(index) * 1_000_000_000 / Int64(fps)
        if let camera, let cameraFrame = camera.frame(index: index, pts: pts) {
            compositor.cameraSlot.put(cameraFrame)
        }
        let milliseconds = Int64(index) * 1000 / Int64(fps)
        // Every output is asked (each clears its own request), then keyframes follow the clock.
        let requested = outputs.map { $0.takeKeyframeRequest() }.contains(true)
        if requested || milliseconds >= nextKeyframeMilliseconds {
            videoEncoder.forceKeyframe()
            nextKeyframeMilliseconds = milliseconds + Int64(configuration.keyframeIntervalSeconds) * 1000
        }
        guard let screenFrame = screen.frame(index: index, pts: pts) else {
            framesSkippedLate += 1
            return
        }
        let converted: VideoFrame?
        do {
            converted = try converter.convert(screenFrame)
        } catch {
            throw BroadcastError(.encoderFailed, "cannot convert the screen frame: \(error)")
        }
        guard let converted else {
            framesSkippedLate += 1
            return
        }
        let picture = compositor.composite(consume converted)
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
        submit(packets)
    }

    private func submit(_ packets: [EncodedVideoPacket]) {
        for packet in packets {
            let body = FLVVideoTagBody.frame(AnnexB.lengthPrefixed(packet.data), isKeyFrame: packet.isKeyframe,
                                             compositionTime: Int32(clamping: packet.pts - packet.dts))
            let tag = FLVTag(video: body, timestamp: UInt32(truncatingIfNeeded: max(0, packet.dts)))
            videoBytes += packet.data.count
            framesEncoded += 1
            for output in outputs { output.submit(tag) }
        }
    }

    // MARK: Audio

    private func audioLoop() async {
        let sampleRate = Int64(audioEncoder.configuration.sampleRate)
        let samplesPerBuffer = Int64(tone.samplesPerBuffer)
        let sampleLimit = configuration.duration.map { Int64(($0 / .seconds(1)) * Double(sampleRate)) }
        var index = 0
        while !shouldStop {
            let firstSample = Int64(index) * samplesPerBuffer
            if let sampleLimit, firstSample >= sampleLimit { return }
            // A buffer is ready once its last sample has been "captured".
            let ready = start + .nanoseconds((firstSample + samplesPerBuffer) * 1_000_000_000 / sampleRate)
            try? await clock.sleep(until: ready)
            guard let buffer = tone.buffer(index: index) else { return }
            do {
                let packets = try buffer.withUnsafeBytes { bytes in
                    try audioEncoder.encode(interleaved: bytes.bindMemory(to: Float.self))
                }
                submit(packets)
            } catch {
                fail(BroadcastError(.encoderFailed, "the audio encoder failed: \(error)"))
                return
            }
            index += 1
        }
    }

    private func submit(_ packets: [EncodedAudioPacket]) {
        let priming = Int64(audioEncoder.primingSamples)
        for packet in packets {
            // The first packet starts `priming` samples before zero; shift so the stream starts at 0 ms.
            let milliseconds = (packet.pts + priming) * 1000 / Int64(packet.sampleRate)
            let tag = FLVTag(audio: .frame(packet.data), timestamp: UInt32(truncatingIfNeeded: max(0, milliseconds)))
            audioBytes += packet.data.count
            audioFramesEncoded += 1
            for output in outputs { output.submit(tag) }
        }
    }

    private func flushEncoders() {
        do {
            submit(try videoEncoder.flush())
            submit(try audioEncoder.flush())
        } catch {
            // The stream is ending anyway; what was sent stays valid.
        }
    }

    // MARK: Monitoring and adaptive bitrate

    private var intervalStart = ContinuousClock.now
    private var intervalVideoBytes = 0
    private var intervalAudioBytes = 0
    private var intervalFrames = 0

    private func monitorLoop() async {
        intervalStart = clock.now
        var tick = 0
        while !shouldStop {
            try? await Task.sleep(for: .milliseconds(100))
            tick += 1
            for output in outputs {
                if case .failed(let error) = output.status.state { fail(error) }
            }
            if tick % 10 == 0 {
                await adaptBitrate()
                refreshStatistics()
            } else {
                updateState()
            }
        }
    }

    private func updateState() {
        let states = outputs.map(\.status.state)
        if let attempt = states.lazy.compactMap({ state -> Int? in
            if case .reconnecting(let attempt) = state { return attempt }
            return nil
        }).first {
            setState(.reconnecting(attempt: attempt))
        } else if !state.isFinal {
            setState(.live)
        }
    }

    private func adaptBitrate() async {
        guard !adaptive.isEmpty else { return }
        let seconds = max(0.001, (clock.now - intervalStart) / .seconds(1))
        var lowest: Int?
        for (index, var controller) in adaptive {
            let output = outputs[index]
            let status = output.status
            let queued = await output.sink.queuedBytes
            let previous = lastHanded[index] ?? (bytes: 0, queued: 0)
            let sentBytes = max(0, (status.bytesHanded - previous.bytes) - (queued - previous.queued))
            lastHanded[index] = (status.bytesHanded, queued)
            let sample = AdaptiveBitrate.Sample(
                queueMilliseconds: status.queueMilliseconds,
                throughputKbps: Int(Double(sentBytes) * 8 / 1000 / seconds),
                audioKbps: configuration.settings.audioBitrateKbps)
            _ = controller.update(sample)
            adaptive[index] = controller
            lowest = min(lowest ?? controller.currentKbps, controller.currentKbps)
        }
        if let lowest, lowest != videoEncoder.configuration.bitrateKbps {
            try? videoEncoder.setBitrate(kbps: lowest)
        }
    }

    private func refreshStatistics() {
        let now = clock.now
        let seconds = max(0.001, (now - intervalStart) / .seconds(1))
        let videoKbps = Int(Double(videoBytes - intervalVideoBytes) * 8 / 1000 / seconds)
        let audioKbps = Int(Double(audioBytes - intervalAudioBytes) * 8 / 1000 / seconds)
        let fps = Double(framesEncoded - intervalFrames) / seconds
        intervalStart = now
        intervalVideoBytes = videoBytes
        intervalAudioBytes = audioBytes
        intervalFrames = framesEncoded
        let statuses = outputs.map(\.status)
        var statistics = BroadcastStatistics()
        statistics.elapsedSeconds = state == .connecting || state == .idle ? 0 : elapsed / .seconds(1)
        statistics.videoKbps = videoKbps
        statistics.audioKbps = audioKbps
        statistics.framesPerSecond = fps
        statistics.framesEncoded = framesEncoded
        statistics.audioFramesEncoded = audioFramesEncoded
        statistics.framesSkippedLate = framesSkippedLate
        statistics.framesDroppedByQueue = statuses.map(\.queue.droppedVideoFrames).max() ?? 0
        statistics.audioFramesDroppedByQueue = statuses.map(\.queue.droppedAudioFrames).max() ?? 0
        statistics.queueMilliseconds = statuses.map(\.queueMilliseconds).max() ?? 0
        statistics.reconnects = statuses.map(\.reconnects).reduce(0, +)
        statistics.currentVideoBitrateKbps = videoEncoder.configuration.bitrateKbps
        statistics.screenPool = screen.statistics
        statistics.encodePool = converter.statistics
        statistics.cameraPool = camera?.statistics ?? PoolStatistics()
        statistics.framesComposited = compositor.statistics.composited
        statistics.frameBufferAllocations = statistics.screenPool.allocations + statistics.encodePool.allocations
            + statistics.cameraPool.allocations + converter.intermediateAllocations
            + compositor.statistics.bufferAllocations
        monitor.withLock { $0.statistics = statistics }
        updateState()
    }
}
#endif
