import AppLogic
import AVFoundation
import Encoders
import Engine
import FLV
import LiveProtocol
import Media
import StreamCore

/// Encodes the camera and microphone for one publish grant and hands the tags to the engine, which runs the same
/// RTMP output as `stream broadcast` (send queue and drops, reconnects, adaptive bitrate). Called on the capture
/// queue only.
final class CameraPublisher: @unchecked Sendable {
    // @unchecked Sendable: every method but `stop` runs on the capture queue; `stop` only calls the engine, which
    // is Sendable.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let url: IngestURL
    private let key: String
    private let settings: StreamSettings
    private let audioEncoder: AudioToolboxAACEncoder
    private let audioConverter: AudioFormatConverter
    private var mixer: AudioMixer
    private var frameGate: FrameRateGate
    private var clock = MediaClock()
    private var videoEncoder: VideoToolboxEncoder?
    private var engine: BroadcastEngine?
    private var lastVideoPts: Int64 = -1
    private var audioBase: UInt32?

    init(grant: PublishGrant, settings: StreamSettings) throws {
        do {
            url = try IngestURL(parsing: grant.url)
        } catch {
            throw Failure(description: "the grant's ingest URL cannot be used: \(error)")
        }
        key = grant.key
        self.settings = settings
        guard let converter = AudioFormatConverter() else { throw Failure(description: "no audio converter") }
        audioConverter = converter
        audioEncoder = try AudioToolboxAACEncoder(configuration: AudioEncoderConfiguration(
            sampleRate: MemoryBudget.audioSampleRate, channels: MemoryBudget.audioChannels,
            bitrateKbps: settings.audioBitrateKbps))
        mixer = AudioMixer(inputCount: 1, channels: MemoryBudget.audioChannels)
        frameGate = FrameRateGate(framesPerSecond: settings.fps)
    }

    func stop() {
        engine?.finish(.stopped)
    }

    func handle(_ sample: CMSampleBuffer, isVideo: Bool) {
        let seconds = CMSampleBufferGetPresentationTimeStamp(sample).seconds
        if isVideo { video(sample, seconds: seconds) } else { audio(sample, seconds: seconds) }
    }

    private func video(_ sample: CMSampleBuffer, seconds: Double) {
        guard frameGate.shouldKeep(atSeconds: seconds), let pixels = CMSampleBufferGetImageBuffer(sample),
              let milliseconds = clock.milliseconds(atSeconds: seconds), Int64(milliseconds) > lastVideoPts else {
            return
        }
        lastVideoPts = Int64(milliseconds)
        if videoEncoder == nil {
            videoEncoder = try? VideoToolboxEncoder(configuration: VideoEncoderConfiguration(
                width: CVPixelBufferGetWidth(pixels), height: CVPixelBufferGetHeight(pixels),
                framesPerSecond: settings.fps, bitrateKbps: settings.videoBitrateKbps))
        }
        guard let encoder = videoEncoder else { return }
        if let engine {
            if engine.takeKeyframeRequest() { encoder.forceKeyframe() }
            if let kbps = engine.takeBitrateRequest() { try? encoder.setBitrate(kbps: kbps) }
        }
        guard let packets = try? encoder.encode(pixels, pts: Int64(milliseconds)) else { return }
        for packet in packets {
            guard let engine = engine ?? startEngine(encoder) else { return }
            engine.submit(FLVTag(video: .frame(AnnexB.lengthPrefixed(packet.data), isKeyFrame: packet.isKeyframe),
                                 timestamp: UInt32(truncatingIfNeeded: packet.pts)))
        }
    }

    private func audio(_ sample: CMSampleBuffer, seconds: Double) {
        mixer.append(audioConverter.convert(sample), toInput: 0)
        guard let engine else {
            while mixer.mix(frames: audioEncoder.frameSize) != nil {}
            return
        }
        if audioBase == nil { audioBase = clock.milliseconds(atSeconds: seconds) }
        while let mixed = mixer.mix(frames: audioEncoder.frameSize) {
            guard let packets = try? audioEncoder.encode(interleaved: mixed) else { return }
            for packet in packets {
                let offset = UInt32(truncatingIfNeeded: max(packet.ptsMilliseconds, 0))
                engine.submit(FLVTag(audio: .frame(packet.data), timestamp: (audioBase ?? 0) &+ offset))
            }
        }
    }

    /// With the encoder's parameter sets the headers exist: the engine starts connecting to the grant's ingest.
    private func startEngine(_ encoder: VideoToolboxEncoder) -> BroadcastEngine? {
        guard let sets = encoder.parameterSets,
              let headers = try? StreamHeaders(
                width: encoder.configuration.width, height: encoder.configuration.height,
                framesPerSecond: settings.fps, videoBitrateKbps: settings.videoBitrateKbps,
                audioBitrateKbps: settings.audioBitrateKbps, audioSampleRate: MemoryBudget.audioSampleRate,
                sps: sets.sps, pps: sets.pps, audioSpecificConfig: audioEncoder.audioSpecificConfig) else { return nil }
        let sink = RTMPSink(url: url, streamKey: key, connector: NetworkConnector())
        let configuration = BroadcastEngine.Configuration(videoBitrateKbps: settings.videoBitrateKbps,
                                                          audioBitrateKbps: settings.audioBitrateKbps,
                                                          adaptiveBitrate: settings.adaptiveBitrate)
        guard let engine = try? BroadcastEngine(outputs: [BroadcastOutput(sink: sink)], headers: headers,
                                                configuration: configuration) else { return nil }
        engine.setClockOrigin(ContinuousClock.now - .milliseconds(max(0, lastVideoPts)))
        self.engine = engine
        Task.detached { _ = await engine.run() }  // ends with finish(.stopped) in stop()
        return engine
    }
}
