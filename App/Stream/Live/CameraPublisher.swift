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
    private var frameGate: FrameRateGate
    private var clock = MediaClock()
    /// Made with the first picture, whose size the video encoder takes: the loop is the engine's `EncodeDriver`.
    private var driver: EncodeDriver<VideoToolboxEncoder, AudioToolboxAACEncoder>?
    private var engine: BroadcastEngine?
    private var lastVideoPts: Int64 = -1

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
        if driver == nil, let encoder = try? VideoToolboxEncoder(configuration: VideoEncoderConfiguration(
            width: CVPixelBufferGetWidth(pixels), height: CVPixelBufferGetHeight(pixels),
            framesPerSecond: settings.fps, bitrateKbps: settings.videoBitrateKbps)) {
            // Unowned: the driver is this publisher's, and calls back only inside its `encodePicture`.
            driver = EncodeDriver(video: encoder, audio: audioEncoder, mixerInputs: 1) { [unowned self] sets in
                self.startEngine(sets, encoder: encoder)
            }
        }
        try? driver?.encodePicture { try $0.encode(pixels, pts: Int64(milliseconds)) }
    }

    private func audio(_ sample: CMSampleBuffer, seconds: Double) {
        // Before the first picture there is no stream to put the sound in.
        guard let driver else { return }
        audioConverter.convert(sample) { driver.append($0, toInput: 0) }
        try? driver.encodeSound(startingAt: clock.milliseconds(atSeconds: seconds))
    }

    /// With the encoder's parameter sets the headers exist: the engine starts connecting to the grant's ingest.
    private func startEngine(_ sets: H264ParameterSets, encoder: VideoToolboxEncoder) -> BroadcastEngine? {
        guard let headers = try? StreamHeaders(
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
