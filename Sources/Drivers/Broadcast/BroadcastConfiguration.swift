import Capture
import Encoders
import Media
import StreamCore

/// Everything a broadcast session needs besides its outputs: the settings and the sources.
public struct BroadcastConfiguration: Sendable {
    /// The broadcast's picture.
    public enum Screen: Sendable {
        /// The moving test pattern of this size (64×64 to 8192×8192).
        case test(PixelSize)
        #if os(Linux)
        /// The X11 screen or a region of it.
        case x11(X11ScreenSource.Options)
        #endif
    }

    /// The broadcast's sound.
    public enum Audio: Sendable {
        /// A sine tone of this frequency in hertz.
        case tone(frequency: Double)
        #if os(Linux)
        /// PulseAudio capture: the plan's microphone, mixed with the system audio when the plan includes it.
        case pulse(AudioCapturePlan, server: String?)
        #endif
    }

    /// The camera feeding the picture-in-picture.
    public enum Camera: Sendable {
        /// Media's camera test pattern, drawn in step with the session's frames.
        case testPattern
        /// A YUV4MPEG2 file (8-bit 4:2:0, looped) or pipe.
        case y4m(path: String)
        /// Any camera (a V4L2 device, …), opened by the factory on its own reading thread.
        case source(@Sendable () throws(CaptureError) -> any CameraSource)
    }

    /// The audio codec: AAC for RTMP and FLV, Opus for WebRTC (WHIP), carried in Enhanced RTMP's Opus tags.
    public enum AudioCodec: Sendable, Hashable {
        /// AAC-LC (libvo-aacenc).
        case aac
        /// Opus at 48 kHz, 20 ms frames (libopus).
        case opus
    }

    /// Quality, frame rate, bitrates, adaptive bitrate and PiP options.
    public var settings: StreamSettings
    /// The picture source; the encode size is locked from its size and the quality when the session starts.
    public var screen: Screen
    /// The sound source.
    public var audio: Audio
    /// The PiP camera.
    public var camera: Camera
    /// How long to broadcast; nil until `stop()`.
    public var duration: Duration?
    /// x264 speed and threading.
    public var x264: X264Options
    /// Seconds between keyframes (ingests ask for 2).
    public var keyframeIntervalSeconds: Int
    /// The audio codec (default AAC; a WHIP broadcast sets Opus).
    public var audioCodec: AudioCodec = .aac

    /// Creates a configuration.
    /// - Parameters:
    ///   - settings: the stream settings (clamped copies are used).
    ///   - screen: the picture source.
    ///   - audio: the sound source.
    ///   - camera: the PiP camera (default the test pattern).
    ///   - duration: how long to broadcast (default: until stopped).
    ///   - x264: encoder options (default veryfast, zerolatency).
    ///   - keyframeIntervalSeconds: keyframe spacing (default 2).
    public init(settings: StreamSettings, screen: Screen, audio: Audio, camera: Camera = .testPattern,
                duration: Duration? = nil, x264: X264Options = X264Options(), keyframeIntervalSeconds: Int = 2) {
        self.settings = settings
        self.screen = screen
        self.audio = audio
        self.camera = camera
        self.duration = duration
        self.x264 = x264
        self.keyframeIntervalSeconds = min(max(keyframeIntervalSeconds, 1), 60)
    }

    /// Creates a configuration of the test sources.
    /// - Parameters:
    ///   - settings: the stream settings (clamped copies are used).
    ///   - screenSize: the test screen's size (default 1920×1080).
    ///   - camera: the PiP camera (default the test pattern).
    ///   - duration: how long to broadcast (default: until stopped).
    ///   - toneFrequency: the tone in hertz (default 440).
    ///   - x264: encoder options (default veryfast, zerolatency).
    ///   - keyframeIntervalSeconds: keyframe spacing (default 2).
    public init(settings: StreamSettings, screenSize: PixelSize = PixelSize(width: 1920, height: 1080),
                camera: Camera = .testPattern, duration: Duration? = nil, toneFrequency: Double = 440,
                x264: X264Options = X264Options(), keyframeIntervalSeconds: Int = 2) {
        self.init(settings: settings, screen: .test(screenSize), audio: .tone(frequency: toneFrequency),
                  camera: camera, duration: duration, x264: x264, keyframeIntervalSeconds: keyframeIntervalSeconds)
    }

    /// The encode size for a screen of `screenSize`, locked from it and the quality.
    public func encodeSize(screenSize: PixelSize) -> PixelSize {
        EncodeGeometry.lockedSize(source: screenSize, shortEdge: settings.quality.shortEdge)
    }

    /// The compositor's configuration from the settings.
    public var pip: PiPConfiguration {
        PiPConfiguration(isEnabled: settings.pipEnabled, corner: PiPCorner(settings.pipCorner),
                         scale: settings.pipScale, camera: settings.cameraPosition == .front ? .front : .back)
    }
}

extension PiPCorner {
    /// Media's corner for the settings' corner.
    init(_ corner: StreamSettings.PiPCorner) {
        switch corner {
        case .topLeft: self = .topLeft
        case .topRight: self = .topRight
        case .bottomLeft: self = .bottomLeft
        case .bottomRight: self = .bottomRight
        }
    }
}
