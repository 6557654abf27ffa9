import StreamCore

/// The keys of `stream settings set`, with parsing, validation and display of each value.
enum SettingsKey: String, CaseIterable, Sendable {
    case quality
    case fps
    case videoBitrate = "video-bitrate"
    case audioBitrate = "audio-bitrate"
    case appAudio = "app-audio"
    case adaptiveBitrate = "adaptive-bitrate"
    case pip
    case pipCorner = "pip-corner"
    case pipScale = "pip-scale"
    case cameraPosition = "camera-position"
    case audioInput = "audio-input"
    case audio
    case publishProtocol = "protocol"

    /// The accepted values, for help and for refusals.
    var choices: String {
        switch self {
        case .quality: return "480p, 720p, 1080p"
        case .fps: return "24, 30, 60"
        case .videoBitrate:
            let range = StreamSettings.videoBitrateRangeKbps
            return "\(range.lowerBound)–\(range.upperBound) (kbps)"
        case .audioBitrate:
            let range = StreamSettings.audioBitrateRangeKbps
            return "\(range.lowerBound)–\(range.upperBound) (kbps)"
        case .appAudio, .adaptiveBitrate, .pip: return "on, off"
        case .pipCorner: return PiPCornerName.allCases.map(\.rawValue).joined(separator: ", ")
        case .pipScale: return "0.10–0.40 (fraction of the frame width) or 10%–40%"
        case .cameraPosition: return "front, back"
        case .audioInput: return "an input's stable id, or 'default'"
        case .audio: return "mic, system, both"
        case .publishProtocol: return "rtmp, whip"
        }
    }

    /// The current value as `settings show` prints it (and `settings set` accepts it).
    func format(_ settings: StreamSettings) -> String {
        switch self {
        case .quality: return settings.quality.rawValue
        case .fps: return String(settings.fps)
        case .videoBitrate: return String(settings.videoBitrateKbps)
        case .audioBitrate: return String(settings.audioBitrateKbps)
        case .appAudio: return onOff(settings.includeAppAudio)
        case .adaptiveBitrate: return onOff(settings.adaptiveBitrate)
        case .pip: return onOff(settings.pipEnabled)
        case .pipCorner: return PiPCornerName(settings.pipCorner).rawValue
        case .pipScale: return String(settings.pipScale)
        case .cameraPosition: return settings.cameraPosition.rawValue
        case .audioInput: return settings.audioInputID ?? "default"
        case .audio: return settings.audioSource.rawValue
        case .publishProtocol: return settings.publishProtocol.rawValue
        }
    }

    /// Applies a value typed by the user.
    /// - Throws: `CLIError.usage` naming the valid choices; `settings` is then unchanged.
    func apply(_ text: String, to settings: inout StreamSettings) throws(CLIError) {
        let value = text.lowercased()
        switch self {
        case .quality:
            let stripped = value.hasSuffix("p") ? String(value.dropLast()) : value
            guard let edge = Int(stripped), let quality = StreamSettings.Quality(shortEdge: edge) else {
                throw refusal(text)
            }
            settings.changeQuality(to: quality)
        case .fps:
            guard let fps = Int(value), let rate = StreamSettings.FrameRate(rawValue: fps) else { throw refusal(text) }
            settings.changeFrameRate(to: rate)
        case .videoBitrate:
            settings.videoBitrateKbps = try integer(text, in: StreamSettings.videoBitrateRangeKbps)
        case .audioBitrate:
            settings.audioBitrateKbps = try integer(text, in: StreamSettings.audioBitrateRangeKbps)
        case .appAudio:
            settings.includeAppAudio = try boolean(text)
        case .adaptiveBitrate:
            settings.adaptiveBitrate = try boolean(text)
        case .pip:
            settings.pipEnabled = try boolean(text)
        case .pipCorner:
            guard let corner = PiPCornerName(rawValue: value) else { throw refusal(text) }
            settings.pipCorner = corner.corner
        case .pipScale:
            settings.pipScale = try scale(value, original: text)
        case .cameraPosition:
            guard let position = StreamSettings.CameraPosition(rawValue: value) else { throw refusal(text) }
            settings.cameraPosition = position
        case .audioInput:
            if value == "default" {
                settings.audioInputID = nil
            } else {
                guard StreamSettings.isUsableAudioInputID(text) else { throw refusal(text) }
                settings.audioInputID = text
            }
        case .audio:
            guard let source = StreamSettings.AudioSource(rawValue: value) else { throw refusal(text) }
            settings.audioSource = source
        case .publishProtocol:
            guard let choice = StreamSettings.PublishProtocol(rawValue: value) else { throw refusal(text) }
            settings.publishProtocol = choice
        }
    }

    private func refusal(_ text: String) -> CLIError {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return CLIError.usage("invalid value '\(shown)' for \(rawValue): valid choices are \(choices)")
    }

    private func integer(_ text: String, in range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let number = Int(text), range.contains(number) else { throw refusal(text) }
        return number
    }

    private func boolean(_ text: String) throws(CLIError) -> Bool {
        switch text.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw refusal(text)
        }
    }

    private func scale(_ value: String, original: String) throws(CLIError) -> Double {
        let parsed: Double?
        if value.hasSuffix("%") {
            parsed = Double(value.dropLast()).map { $0 / 100 }
        } else {
            parsed = Double(value)
        }
        // Compare with a small tolerance so that "10%" (0.1 after division) is not refused by rounding.
        let range = StreamSettings.pipScaleRange
        guard let scale = parsed, scale.isFinite,
              scale >= range.lowerBound - 1e-9, scale <= range.upperBound + 1e-9
        else { throw refusal(original) }
        return min(max(scale, range.lowerBound), range.upperBound)
    }

    private func onOff(_ value: Bool) -> String { value ? "on" : "off" }
}

/// The CLI spelling of the overlay corners (`top-left`, …).
enum PiPCornerName: String, CaseIterable {
    case topLeft = "top-left"
    case topRight = "top-right"
    case bottomLeft = "bottom-left"
    case bottomRight = "bottom-right"

    init(_ corner: StreamSettings.PiPCorner) {
        switch corner {
        case .topLeft: self = .topLeft
        case .topRight: self = .topRight
        case .bottomLeft: self = .bottomLeft
        case .bottomRight: self = .bottomRight
        }
    }

    var corner: StreamSettings.PiPCorner {
        switch self {
        case .topLeft: return .topLeft
        case .topRight: return .topRight
        case .bottomLeft: return .bottomLeft
        case .bottomRight: return .bottomRight
        }
    }
}
