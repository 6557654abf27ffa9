import AppLogic
import Encoders
import Engine
import Publisher
import StreamCore
import Testing

/// The iOS encode session with the encoders Linux has (x264, libvo-aacenc): frame rate, picture times, when the
/// engine is made and from what, and the failures' words.
struct EncodeSessionTests {
    typealias Session = EncodeSession<X264Encoder, AACEncoder>

    /// A connector that is never dialled here: the engines these tests make are not run.
    struct Unreachable: ByteStreamConnector {
        func connect(to url: IngestURL, timeout: Duration) async throws(LinkError) -> any ByteStream {
            throw LinkError(.refused, "not in a unit test")
        }
    }

    static let destination = Session.Destination(
        url: IngestURL(scheme: .rtmps, host: "live.example", app: "app"), streamKey: "secret-key",
        connector: Unreachable())

    static func settings() -> StreamSettings {
        var settings = StreamSettings.defaults(for: .p720)
        settings.adaptiveBitrate = false
        settings.audioBitrateKbps = 96
        return settings
    }

    static func session(started: @escaping (BroadcastEngine) -> Void = { _ in }) throws -> Session {
        let settings = settings()
        let audio = try AACEncoder(configuration: MemoryBudget.audioConfiguration(settings))
        return Session(settings: settings, audio: audio, mixerInputs: 2, destination: destination, started: started)
    }

    static func video() throws -> X264Encoder {
        try X264Encoder(configuration: VideoEncoderConfiguration(width: 320, height: 240, framesPerSecond: 30,
                                                                 bitrateKbps: 600))
    }

    /// Encodes picture `index` at `pts` (a grey level that changes, so that every picture has something to code).
    static func picture(_ session: Session, _ index: Int, pts: Int64) throws(BroadcastFailure) {
        let luma = [UInt8](repeating: UInt8(truncatingIfNeeded: 16 + index * 7), count: 320 * 240)
        let chroma = [UInt8](repeating: 128, count: 160 * 120)
        try session.encodePicture(pts: pts) { encoder, pts in
            try luma.withUnsafeBufferPointer { y in
                try chroma.withUnsafeBufferPointer { c in
                    try encoder.encode(I420Planes(width: 320, height: 240, y: y.baseAddress!, yStride: 320,
                                                  u: c.baseAddress!, uStride: 160, v: c.baseAddress!, vStride: 160),
                                       pts: pts)
                }
            }
        }
    }

    @Test func picturesAreKeptAtTheSettingsFrameRate() throws {
        let session = try Self.session()
        // 60 Hz capture at 30 fps: every other frame.
        let kept = (0..<12).filter { session.admits(atSeconds: 100 + Double($0) / 60) }
        #expect(kept == [0, 2, 4, 6, 8, 10])
    }

    @Test func pictureTimesCountFromTheFirstBufferAndOnlyGoForward() throws {
        let session = try Self.session()
        #expect(session.pictureTime(atSeconds: 50.0) == 0)
        #expect(session.pictureTime(atSeconds: 50.0334) == 33)
        #expect(session.pictureTime(atSeconds: 50.0334) == nil)  // the same time again
        #expect(session.pictureTime(atSeconds: 50.02) == nil)  // earlier
        #expect(session.pictureTime(atSeconds: .nan) == nil)
        #expect(session.pictureTime(atSeconds: 51.5) == 1500)
    }

    @Test func nothingIsEncodedBeforeTheVideoEncoderIsGiven() throws {
        var engines = 0
        let session = try Self.session { _ in engines += 1 }
        #expect(!session.isEncoding)
        try Self.picture(session, 0, pts: 0)
        [Float](repeating: 0.25, count: 4096).withUnsafeBufferPointer { session.appendSound($0, toInput: 0) }
        try session.encodeSound(atSeconds: 1)
        #expect(session.driver == nil)
        #expect(engines == 0)
        session.finish()
    }

    @Test func theFirstParameterSetsMakeTheEngineFromTheEncodersConfigurations() throws {
        var engines: [BroadcastEngine] = []
        let session = try Self.session { engines.append($0) }
        let video = try Self.video()
        session.begin(video: video)
        session.begin(video: try Self.video())  // ignored: the first encoder stays
        #expect(session.isEncoding)
        #expect(session.driver?.video === video)
        for index in 0..<5 {
            let pts = try #require(session.pictureTime(atSeconds: 10 + Double(index) / 30))
            try Self.picture(session, index, pts: pts)
        }
        #expect(engines.count == 1)
        let engine = try #require(session.engine)
        #expect(engines.first === engine)
        let metadata = engine.headers.metadata
        #expect(metadata.width == 320)
        #expect(metadata.height == 240)
        #expect(metadata.frameRate == 30)
        #expect(metadata.videoDataRate == 600)
        #expect(metadata.audioDataRate == 96)
        #expect(metadata.audioSampleRate == 48_000)
        #expect(engine.configuration == BroadcastEngine.Configuration(videoBitrateKbps: 600, audioBitrateKbps: 96,
                                                                      adaptiveBitrate: false))
        #expect(engine.outputs.map(\.sink.label) == ["rtmps://live.example/app/••••"])
        let counters = try #require(session.driver?.counters)
        #expect(counters.framesEncoded == 5)
        #expect(counters.elapsedSeconds == 0.133)
        #expect(counters.videoWorkSeconds > 0)
        session.finish()
    }

    @Test func soundIsMixedFromEachSourceAndEncodedOnceTheEngineExists() throws {
        let session = try Self.session()
        session.begin(video: try Self.video())
        let tone = [Float](repeating: 0.1, count: 1024 * 2)
        // Before the engine: the mix is dropped.
        tone.withUnsafeBufferPointer { session.appendSound($0, toInput: 0) }
        tone.withUnsafeBufferPointer { session.appendSound($0, toInput: 1) }
        try session.encodeSound(atSeconds: 10)
        #expect(session.driver?.counters.audioFramesEncoded == 0)
        try Self.picture(session, 0, pts: 0)
        #expect(session.engine != nil)
        for _ in 0..<8 {
            tone.withUnsafeBufferPointer { session.appendSound($0, toInput: 0) }
            tone.withUnsafeBufferPointer { session.appendSound($0, toInput: 1) }
            try session.encodeSound(atSeconds: 10.1)
        }
        #expect((session.driver?.counters.audioFramesEncoded ?? 0) > 0)
        session.finish()
    }
}

/// The session with an encoder that the tests script: its failures, and unusable parameter sets.
struct EncodeSessionFailureTests {
    final class ScriptedEncoder: VideoEncoder {
        let configuration = VideoEncoderConfiguration(width: 320, height: 240, framesPerSecond: 30, bitrateKbps: 600)
        var parameterSets: H264ParameterSets?
        var failure: EncoderError?

        func encode(_ picture: I420Planes, pts: Int64) throws -> [EncodedVideoPacket] { [] }
        func flush() throws -> [EncodedVideoPacket] { [] }
        func setBitrate(kbps: Int) throws {}
        func forceKeyframe() {}

        /// One keyframe, with the scripted parameter sets, or the scripted failure.
        func encodeFrame(pts: Int64) throws -> [EncodedVideoPacket] {
            if let failure { throw failure }
            return [EncodedVideoPacket(data: [0, 0, 0, 1, 0x65], pts: pts, dts: pts, isKeyframe: true)]
        }
    }

    typealias Session = EncodeSession<ScriptedEncoder, AACEncoder>

    static func session() throws -> Session {
        let settings = StreamSettings.defaults(for: .p720)
        return Session(settings: settings, audio: try AACEncoder(configuration: MemoryBudget.audioConfiguration(settings)),
                       mixerInputs: 1, destination: Session.Destination(
                           url: IngestURL(scheme: .rtmp, host: "live.example", app: "live"), streamKey: "k",
                           connector: EncodeSessionTests.Unreachable()),
                       started: { _ in })
    }

    @Test func anEncoderFailureIsAnEncoderFailedBroadcast() throws {
        let session = try Self.session()
        let encoder = ScriptedEncoder()
        encoder.failure = EncoderError(.encodeFailed, "VideoToolbox refused a frame (OSStatus -12902)")
        session.begin(video: encoder)
        #expect(throws: BroadcastFailure.encoderFailed(detail: "VideoToolbox refused a frame (OSStatus -12902)")) {
            try session.encodePicture(pts: 0) { encoder, pts in try encoder.encodeFrame(pts: pts) }
        }
    }

    @Test func parameterSetsThatMakeNoHeadersFailTheBroadcastWithWhy() throws {
        let session = try Self.session()
        let encoder = ScriptedEncoder()
        encoder.parameterSets = H264ParameterSets(sps: [0x68, 0xEE], pps: [0x68, 0xEE])  // a PPS where the SPS goes
        session.begin(video: encoder)
        #expect {
            try session.encodePicture(pts: 0) { encoder, pts in try encoder.encodeFrame(pts: pts) }
        } throws: { error in
            guard case .encoderFailed(let detail) = error as? BroadcastFailure else { return false }
            return detail.hasPrefix("the encoders produced unusable headers: ")
        }
        #expect(session.engine == nil)
    }
}
