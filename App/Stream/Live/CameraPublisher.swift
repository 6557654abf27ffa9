import AppLogic
import AVFoundation
import Encoders
import Engine
import LiveProtocol
import StreamCore

/// Encodes the camera and microphone for one publish grant into the engine, which runs the same RTMP output as
/// `stream broadcast` (send queue and drops, reconnects, adaptive bitrate); the encode is AppLogic's
/// `EncodeSession`, the extension's too. Called on the capture queue only.
final class CameraPublisher: @unchecked Sendable {
    // @unchecked Sendable: every method but `stop` runs on the capture queue; `stop` only calls the engine, which
    // is Sendable.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let settings: StreamSettings
    private let audioConverter: AudioFormatConverter
    private let session: EncodeSession<VideoToolboxEncoder, AudioToolboxAACEncoder>

    init(grant: PublishGrant, settings: StreamSettings) throws {
        let url: IngestURL
        do {
            url = try IngestURL(parsing: grant.url)
        } catch {
            throw Failure(description: "the grant's ingest URL cannot be used: \(error)")
        }
        self.settings = settings
        guard let converter = AudioFormatConverter() else { throw Failure(description: "no audio converter") }
        audioConverter = converter
        let audioEncoder = try AudioToolboxAACEncoder(configuration: MemoryBudget.audioConfiguration(settings))
        session = EncodeSession(
            settings: settings, audio: audioEncoder, mixerInputs: 1,
            destination: .init(url: url, streamKey: grant.key, connector: NetworkConnector())
        ) { engine in Task.detached { _ = await engine.run() } }  // ends with finish(.stopped) in stop()
    }

    func stop() {
        session.finish()
    }

    func handle(_ sample: CMSampleBuffer, isVideo: Bool) {
        let seconds = CMSampleBufferGetPresentationTimeStamp(sample).seconds
        guard isVideo else {
            // Before the first picture there is no stream to put the sound in.
            guard session.isEncoding else { return }
            audioConverter.convert(sample) { session.appendSound($0, toInput: 0) }
            try? session.encodeSound(atSeconds: seconds)
            return
        }
        guard session.admits(atSeconds: seconds), let pixels = CMSampleBufferGetImageBuffer(sample),
              let pts = session.pictureTime(atSeconds: seconds) else { return }
        if !session.isEncoding, let encoder = try? VideoToolboxEncoder(configuration: VideoEncoderConfiguration(
            width: CVPixelBufferGetWidth(pixels), height: CVPixelBufferGetHeight(pixels),
            framesPerSecond: settings.fps, bitrateKbps: settings.videoBitrateKbps)) {
            session.begin(video: encoder)
        }
        try? session.encodePicture(pts: pts) { try $0.encode(pixels, pts: $1) }
    }
}
