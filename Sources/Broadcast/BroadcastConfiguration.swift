import Encoders
import Media
import StreamCore

/// Everything a broadcast session needs besides its outputs: the settings and the sources.
public struct BroadcastConfiguration: Sendable {
    /// The camera feeding the picture-in-picture.
    public enum Camera: Sendable, Hashable {
        /// Media's camera test pattern.
        case testPattern
        /// A YUV4MPEG2 file (8-bit 4:2:0), looped.
        case y4m(path: String)
    }

    /// Quality, frame rate, bitrates, adaptive bitrate and PiP options.
    public var settings: StreamSettings
    /// The test screen's size; the encode size is locked from it and the quality when the session starts.
    public var screenSize: PixelSize
    /// The PiP camera.
    public var camera: Camera
    /// How long to broadcast; nil until `stop()`.
    public var duration: Duration?
    /// The test tone's frequency in hertz.
    public var toneFrequency: Double
    /// x264 speed and threading.
    public var x264: X264Options
    /// Seconds between keyframes (ingests ask for 2).
    public var keyframeIntervalSeconds: Int
    /// Each network output's send queue thresholds (recordings use `SendQueue.Policy.recording`).
    public var queuePolicy: SendQueue.Policy
    /// Each network output's reconnect schedule.
    public var backoff: ReconnectBackoff

    /// Creates a configuration.
    /// - Parameters:
    ///   - settings: the stream settings (clamped copies are used).
    ///   - screenSize: the test screen's size (default 1920×1080).
    ///   - camera: the PiP camera (default the test pattern).
    ///   - duration: how long to broadcast (default: until stopped).
    ///   - toneFrequency: the tone in hertz (default 440).
    ///   - x264: encoder options (default veryfast, zerolatency).
    ///   - keyframeIntervalSeconds: keyframe spacing (default 2).
    ///   - queuePolicy: send queue thresholds (default 700/900 ms).
    ///   - backoff: reconnect schedule (default 1 s doubling to 30 s, 10 attempts).
    public init(settings: StreamSettings, screenSize: PixelSize = PixelSize(width: 1920, height: 1080),
                camera: Camera = .testPattern, duration: Duration? = nil, toneFrequency: Double = 440,
                x264: X264Options = X264Options(), keyframeIntervalSeconds: Int = 2,
                queuePolicy: SendQueue.Policy = SendQueue.Policy(), backoff: ReconnectBackoff = ReconnectBackoff()) {
        self.settings = settings
        self.screenSize = screenSize
        self.camera = camera
        self.duration = duration
        self.toneFrequency = toneFrequency
        self.x264 = x264
        self.keyframeIntervalSeconds = min(max(keyframeIntervalSeconds, 1), 60)
        self.queuePolicy = queuePolicy
        self.backoff = backoff
    }

    /// The encode size, locked from the screen's size and the quality.
    public var encodeSize: PixelSize {
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
