/// Every non-sensitive tunable of a broadcast, shared by the app, the broadcast extension and the CLI.
///
/// Credentials (URL and stream key) are deliberately not here: they live in a `CredentialStore`.
/// Decoding is lenient (see `StreamSettings+Codable.swift`): unknown keys are ignored, missing keys take
/// defaults and out-of-range values are clamped with a `SettingsWarning`.
public struct StreamSettings: Sendable, Equatable {
    /// The encode size's short edge.
    public var quality: Quality
    /// Frames per second of the encode.
    public var frameRate: FrameRate
    /// Target video bitrate in kilobits per second, within `videoBitrateRangeKbps`.
    public var videoBitrateKbps: Int
    /// AAC bitrate in kilobits per second, within `audioBitrateRangeKbps`.
    public var audioBitrateKbps: Int
    /// Whether the captured apps' (the system's) audio is in the stream: ``audioSource`` is `.system` or `.both`.
    /// Setting it on turns a microphone-only choice into `.both`; off leaves the microphone alone.
    public var includeAppAudio: Bool {
        get { audioSource != .microphone }
        set { audioSource = newValue ? (audioSource == .microphone ? .both : audioSource) : .microphone }
    }
    /// What is heard: the microphone, the system (apps') audio, or both mixed (the seed's `useMic` switch).
    public var audioSource: AudioSource
    /// How the broadcast is published: RTMP(S), or WebRTC through a WHIP endpoint.
    public var publishProtocol: PublishProtocol
    /// Whether the encoder may lower the bitrate when the network cannot keep up.
    public var adaptiveBitrate: Bool
    /// Whether the camera picture-in-picture overlay is composited onto the screen.
    public var pipEnabled: Bool
    /// The corner the overlay sits in.
    public var pipCorner: PiPCorner
    /// The overlay's width as a fraction of the frame width, within `pipScaleRange`.
    public var pipScale: Double
    /// The camera feeding the overlay.
    public var cameraPosition: CameraPosition
    /// The stable identifier (e.g. an AVAudioSession port UID) of the chosen microphone; nil for the default.
    public var audioInputID: String?

    /// The accepted video bitrates, in kbps.
    public static let videoBitrateRangeKbps: ClosedRange<Int> = 300...20_000
    /// The accepted AAC bitrates, in kbps.
    public static let audioBitrateRangeKbps: ClosedRange<Int> = 32...320
    /// The accepted overlay scales (fraction of the frame width).
    public static let pipScaleRange: ClosedRange<Double> = 0.10...0.40
    /// The longest accepted audio input identifier, in UTF-8 bytes.
    public static let maximumAudioInputIDLength = 512

    /// Frames per second as an integer (24, 30 or 60).
    public var fps: Int { frameRate.rawValue }

    /// Creates settings with explicit values (not clamped: call `clamp()` before trusting foreign values).
    public init(quality: Quality, frameRate: FrameRate, videoBitrateKbps: Int, audioBitrateKbps: Int,
                includeAppAudio: Bool, adaptiveBitrate: Bool, pipEnabled: Bool, pipCorner: PiPCorner,
                pipScale: Double, cameraPosition: CameraPosition, audioInputID: String?) {
        self.quality = quality
        self.frameRate = frameRate
        self.videoBitrateKbps = videoBitrateKbps
        self.audioBitrateKbps = audioBitrateKbps
        self.audioSource = includeAppAudio ? .both : .microphone
        self.publishProtocol = .rtmp
        self.adaptiveBitrate = adaptiveBitrate
        self.pipEnabled = pipEnabled
        self.pipCorner = pipCorner
        self.pipScale = pipScale
        self.cameraPosition = cameraPosition
        self.audioInputID = audioInputID
    }

    /// The defaults: 720p30 at 3000 kbps video and 128 kbps AAC, app audio on, adaptive bitrate on, PiP off.
    public init() {
        self = Self.defaults(for: .p720, frameRate: .fps30)
    }

    /// What a streamer would pick for a quality and frame rate: the video bitrate follows common ingest
    /// recommendations (e.g. 720p30 → 3000 kbps, 1080p60 → 7500 kbps), audio is 128 kbps AAC.
    /// - Parameters:
    ///   - quality: the short edge.
    ///   - frameRate: frames per second.
    /// - Returns: settings with every other tunable at its default.
    public static func defaults(for quality: Quality, frameRate: FrameRate = .fps30) -> StreamSettings {
        StreamSettings(quality: quality, frameRate: frameRate,
                       videoBitrateKbps: recommendedVideoBitrateKbps(quality: quality, frameRate: frameRate),
                       audioBitrateKbps: 128, includeAppAudio: true, adaptiveBitrate: true,
                       pipEnabled: false, pipCorner: .bottomRight, pipScale: 0.25, cameraPosition: .front,
                       audioInputID: nil)
    }

    /// Same as `defaults(for:frameRate:)` with the frame rate as an integer.
    /// - Parameters:
    ///   - quality: the short edge.
    ///   - fps: 24, 30 or 60; anything else takes the nearest of those.
    public static func defaults(for quality: Quality, fps: Int) -> StreamSettings {
        defaults(for: quality, frameRate: FrameRate.nearest(to: fps))
    }

    /// The default video bitrate for a quality and frame rate, in kbps.
    public static func recommendedVideoBitrateKbps(quality: Quality, frameRate: FrameRate) -> Int {
        let at30: Int
        switch quality {
        case .p480: at30 = 1200
        case .p720: at30 = 3000
        case .p1080: at30 = 5000
        }
        switch frameRate {
        case .fps24: return at30 * 5 / 6
        case .fps30: return at30
        case .fps60: return at30 * 3 / 2
        }
    }

    /// The default video bitrate for the current quality and frame rate.
    private var currentDefaultVideoBitrateKbps: Int {
        Self.recommendedVideoBitrateKbps(quality: quality, frameRate: frameRate)
    }

    /// Changes the quality; a video bitrate still at the old default follows to the new default.
    /// - Parameter newQuality: the new short edge.
    public mutating func changeQuality(to newQuality: Quality) {
        let followsDefault = videoBitrateKbps == currentDefaultVideoBitrateKbps
        quality = newQuality
        if followsDefault {
            videoBitrateKbps = Self.recommendedVideoBitrateKbps(quality: quality, frameRate: frameRate)
        }
    }

    /// Changes the frame rate; a video bitrate still at the old default follows to the new default.
    /// - Parameter newFrameRate: the new frame rate.
    public mutating func changeFrameRate(to newFrameRate: FrameRate) {
        let followsDefault = videoBitrateKbps == currentDefaultVideoBitrateKbps
        frameRate = newFrameRate
        if followsDefault {
            videoBitrateKbps = Self.recommendedVideoBitrateKbps(quality: quality, frameRate: frameRate)
        }
    }

    /// Brings every numeric value into its range and drops an unusable audio input identifier.
    /// - Returns: one warning per value that was changed (empty when everything was valid).
    @discardableResult
    public mutating func clamp() -> [SettingsWarning] {
        var warnings: [SettingsWarning] = []
        Self.clamp(&videoBitrateKbps, to: Self.videoBitrateRangeKbps, key: .videoBitrateKbps, label: "video bitrate",
                   unit: " kbps", warnings: &warnings)
        Self.clamp(&audioBitrateKbps, to: Self.audioBitrateRangeKbps, key: .audioBitrateKbps, label: "audio bitrate",
                   unit: " kbps", warnings: &warnings)
        if !pipScale.isFinite {
            warnings.append(SettingsWarning(key: CodingKeys.pipScale.stringValue,
                                            message: "picture-in-picture scale is not a number; using 0.25"))
            pipScale = 0.25
        } else {
            Self.clamp(&pipScale, to: Self.pipScaleRange, key: .pipScale, label: "picture-in-picture scale",
                       unit: "", warnings: &warnings)
        }
        if let id = audioInputID, !Self.isUsableAudioInputID(id) {
            warnings.append(SettingsWarning(key: CodingKeys.audioInputID.stringValue,
                                            message: "audio input id is empty, too long or has control characters; "
                                                + "using the default input"))
            audioInputID = nil
        }
        return warnings
    }

    /// Clamps one value into its range, recording a warning when it changes.
    private static func clamp<Value: Comparable>(_ value: inout Value, to range: ClosedRange<Value>, key: CodingKeys,
                                                 label: String, unit: String, warnings: inout [SettingsWarning]) {
        guard !range.contains(value) else { return }
        let clamped = min(max(value, range.lowerBound), range.upperBound)
        warnings.append(SettingsWarning(key: key.stringValue, message: "\(label) \(value)\(unit) is outside "
                                            + "\(range.lowerBound)–\(range.upperBound); using \(clamped)"))
        value = clamped
    }

    /// Whether an audio input identifier can be stored: non-empty, at most 512 bytes, no control characters.
    public static func isUsableAudioInputID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumAudioInputIDLength
            && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
