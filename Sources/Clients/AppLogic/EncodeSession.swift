import Encoders
import Engine
import Publisher
import StreamCore

/// One iOS encode into the engine's RTMP output, whatever captures it: the screen broadcast's extension and the
/// go-live camera share it, over VideoToolbox and AudioToolbox there (x264 and libvo-aacenc in the tests).
///
/// It keeps the frame rate (``FrameRateGate``), the stream time of each picture (``MediaClock``, strictly
/// increasing), the encode loop (Engine's ``EncodeDriver``, begun with the first picture's encoder) and the engine,
/// made once the video encoder gave its parameter sets: its headers come from the encoders' configurations, its
/// output is an ``RTMPSink`` to the destination, and its clock's origin is the first buffer's time. Sound before the
/// first picture is dropped, as there is no stream to put it in. Single-owner: use it from one thread.
public final class EncodeSession<Video: VideoEncoder, Audio: AudioEncoder> {
    /// Where the stream goes.
    public struct Destination: Sendable {
        /// The ingest (without the key).
        public var url: IngestURL
        /// The publish name.
        public var streamKey: String
        /// Opens the platform's byte streams (`NWConnection` on iOS).
        public var connector: any ByteStreamConnector

        /// Creates a destination.
        /// - Parameters:
        ///   - url: the ingest.
        ///   - streamKey: the publish name.
        ///   - connector: opens the byte streams.
        public init(url: IngestURL, streamKey: String, connector: any ByteStreamConnector) {
            self.url = url
            self.streamKey = streamKey
            self.connector = connector
        }
    }

    /// The audio encoder.
    public let audio: Audio
    /// The encode loop, once ``begin(video:)`` gave it the video encoder.
    public private(set) var driver: EncodeDriver<Video, Audio>?
    /// The engine, once the first packet with parameter sets made it.
    public private(set) var engine: BroadcastEngine?
    private let destination: Destination
    private let adaptiveBitrate: Bool
    private let mixerInputs: Int
    private let started: (BroadcastEngine) -> Void
    private var gate: FrameRateGate
    private var clock = MediaClock()
    /// The last picture's stream time in milliseconds; -1 before the first.
    private var lastPicture: Int64 = -1

    /// Creates a session; nothing is encoded before ``begin(video:)``, nothing sent before the first parameter sets.
    /// - Parameters:
    ///   - settings: the frame rate and whether the bitrate adapts.
    ///   - audio: the audio encoder, opened with ``MemoryBudget/audioConfiguration(_:)``.
    ///   - mixerInputs: how many sound sources ``appendSound(_:toInput:)`` takes, at least 1.
    ///   - destination: where the stream goes.
    ///   - started: called with the engine once it is made, to run it (`run()`), before any tag reaches it.
    public init(settings: StreamSettings, audio: Audio, mixerInputs: Int, destination: Destination,
                started: @escaping (BroadcastEngine) -> Void) {
        self.audio = audio
        self.mixerInputs = mixerInputs
        self.destination = destination
        self.started = started
        adaptiveBitrate = settings.adaptiveBitrate
        gate = FrameRateGate(framesPerSecond: settings.fps)
    }

    /// Whether ``begin(video:)`` was called: sound is worth converting.
    public var isEncoding: Bool { driver != nil }

    /// Whether a picture captured at `seconds` is kept at the settings' frame rate (asked once per captured frame).
    /// - Parameter seconds: the capture time in host-clock seconds.
    public func admits(atSeconds seconds: Double) -> Bool {
        gate.shouldKeep(atSeconds: seconds)
    }

    /// The stream time of a picture captured at `seconds`, or nil when it is not later than the last picture's (or
    /// not a time at all): that picture is skipped.
    /// - Parameter seconds: the capture time in host-clock seconds.
    /// - Returns: milliseconds since the first buffer.
    public func pictureTime(atSeconds seconds: Double) -> Int64? {
        guard let milliseconds = clock.milliseconds(atSeconds: seconds), Int64(milliseconds) > lastPicture else {
            return nil
        }
        lastPicture = Int64(milliseconds)
        return lastPicture
    }

    /// Starts the encode loop with the video encoder, opened for the first picture; later calls are ignored.
    /// - Parameter video: the video encoder.
    public func begin(video: Video) {
        guard driver == nil else { return }
        // Unowned: the driver is this session's, and calls back only inside its `encodePicture`.
        driver = EncodeDriver(video: video, audio: audio, mixerInputs: mixerInputs) { [unowned self] sets in
            try self.startEngine(sets)
        }
    }

    /// Encodes one picture and sends what comes out; counts the stream time and the time spent. Does nothing before
    /// ``begin(video:)``.
    /// - Parameters:
    ///   - pts: the picture's time from ``pictureTime(atSeconds:)``.
    ///   - encode: encodes it with the video encoder at that time.
    /// - Throws: `.encoderFailed` when the encoder fails, or the encoders' headers are unusable.
    public func encodePicture(pts: Int64, _ encode: (Video, Int64) throws -> [EncodedVideoPacket])
        throws(BroadcastFailure) {
        guard let driver else { return }
        driver.counters.elapsedSeconds = Double(pts) / 1000
        let started = ContinuousClock.now
        do {
            try driver.encodePicture { try encode($0, pts) }
        } catch let failure as BroadcastFailure {
            throw failure
        } catch {
            throw .encoderFailed(detail: "\(error)")
        }
        driver.counters.videoWorkSeconds += started.duration(to: .now) / .seconds(1)
    }

    /// Queues converted samples (interleaved, in the audio encoder's format) of one source for the mix.
    /// - Parameters:
    ///   - samples: whole sample frames.
    ///   - input: the source, below `mixerInputs`.
    public func appendSound(_ samples: UnsafeBufferPointer<Float>, toInput input: Int) {
        driver?.append(samples, toInput: input)
    }

    /// Encodes and sends what the mix has; the first sound sent is timed at `seconds`.
    /// - Parameter seconds: the capture time of the buffer just appended, in host-clock seconds.
    /// - Throws: `.encoderFailed` when the audio encoder fails.
    public func encodeSound(atSeconds seconds: Double) throws(BroadcastFailure) {
        guard let driver else { return }
        do {
            try driver.encodeSound(startingAt: self.clock.milliseconds(atSeconds: seconds))
        } catch {
            throw .encoderFailed(detail: "\(error)")
        }
    }

    /// Ends the broadcast, if it started (the engine closes its outputs cleanly).
    public func finish() {
        engine?.finish(.stopped)
    }

    /// The first packet with parameter sets is out: with them the headers exist, so the engine is made and starts
    /// connecting (its queue holds this first keyframe meanwhile).
    private func startEngine(_ sets: H264ParameterSets) throws(BroadcastFailure) -> BroadcastEngine? {
        guard let video = driver?.video else { return nil }
        let picture = video.configuration
        let sound = audio.configuration
        let headers: StreamHeaders
        do {
            headers = try StreamHeaders(
                width: picture.width, height: picture.height, framesPerSecond: picture.framesPerSecond,
                videoBitrateKbps: picture.bitrateKbps, audioBitrateKbps: sound.bitrateKbps,
                audioSampleRate: sound.sampleRate, sps: sets.sps, pps: sets.pps,
                audioSpecificConfig: audio.audioSpecificConfig)
        } catch {
            throw .encoderFailed(detail: "the encoders produced unusable headers: \(error)")
        }
        let sink = RTMPSink(url: destination.url, streamKey: destination.streamKey, connector: destination.connector)
        let configuration = BroadcastEngine.Configuration(videoBitrateKbps: picture.bitrateKbps,
                                                          audioBitrateKbps: sound.bitrateKbps,
                                                          adaptiveBitrate: adaptiveBitrate)
        guard let engine = try? BroadcastEngine(outputs: [BroadcastOutput(sink: sink)], headers: headers,
                                                configuration: configuration) else { return nil }
        // Timestamp 0 is the first buffer's time on the host clock (MediaClock's origin): now, minus this picture's.
        engine.setClockOrigin(ContinuousClock.now - .milliseconds(max(0, lastPicture)))
        self.engine = engine
        started(engine)
        return engine
    }
}
