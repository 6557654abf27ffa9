#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

extension StreamSettings: Codable {
    /// The JSON keys of the settings blob.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case quality, fps, videoBitrateKbps, audioBitrateKbps, includeAppAudio, adaptiveBitrate
        case pipEnabled, pipCorner, pipScale, cameraPosition, audioInputID, audioSource, publishProtocol
    }

    /// Decodes leniently: unknown keys are ignored, a missing key or a value of the wrong type takes the default,
    /// and out-of-range values are clamped. Warnings go to the `SettingsWarningSink` in the decoder's `userInfo`
    /// (under `SettingsWarningSink.userInfoKey`) when there is one.
    /// - Throws: only when the top level is not a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var warnings: [SettingsWarning] = []
        var reader = LenientReader(container: container)

        let quality = reader.quality() ?? .p720
        let frameRate = reader.frameRate() ?? .fps30
        var settings = StreamSettings.defaults(for: quality, frameRate: frameRate)
        settings.videoBitrateKbps = reader.integer(.videoBitrateKbps) ?? settings.videoBitrateKbps
        settings.audioBitrateKbps = reader.integer(.audioBitrateKbps) ?? settings.audioBitrateKbps
        settings.includeAppAudio = reader.bool(.includeAppAudio) ?? settings.includeAppAudio
        // Blobs from before the audio choice have only includeAppAudio: on means both, off the microphone.
        settings.audioSource = reader.rawEnum(.audioSource, AudioSource.self) ?? settings.audioSource
        settings.publishProtocol = reader.rawEnum(.publishProtocol, PublishProtocol.self) ?? .rtmp
        settings.adaptiveBitrate = reader.bool(.adaptiveBitrate) ?? settings.adaptiveBitrate
        settings.pipEnabled = reader.bool(.pipEnabled) ?? settings.pipEnabled
        settings.pipCorner = reader.rawEnum(.pipCorner, PiPCorner.self) ?? settings.pipCorner
        settings.pipScale = reader.double(.pipScale) ?? settings.pipScale
        settings.cameraPosition = reader.rawEnum(.cameraPosition, CameraPosition.self) ?? settings.cameraPosition
        settings.audioInputID = reader.optionalString(.audioInputID)
        warnings += reader.warnings
        warnings += settings.clamp()

        (decoder.userInfo[SettingsWarningSink.userInfoKey] as? SettingsWarningSink)?.append(contentsOf: warnings)
        self = settings
    }

    /// Encodes every field (the audio input only when one is chosen); `includeAppAudio` stays in the blob for
    /// readers from before ``StreamSettings/audioSource``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(quality, forKey: .quality)
        try container.encode(frameRate.rawValue, forKey: .fps)
        try container.encode(videoBitrateKbps, forKey: .videoBitrateKbps)
        try container.encode(audioBitrateKbps, forKey: .audioBitrateKbps)
        try container.encode(includeAppAudio, forKey: .includeAppAudio)
        try container.encode(adaptiveBitrate, forKey: .adaptiveBitrate)
        try container.encode(pipEnabled, forKey: .pipEnabled)
        try container.encode(pipCorner, forKey: .pipCorner)
        try container.encode(pipScale, forKey: .pipScale)
        try container.encode(cameraPosition, forKey: .cameraPosition)
        try container.encodeIfPresent(audioInputID, forKey: .audioInputID)
        try container.encode(audioSource, forKey: .audioSource)
        try container.encode(publishProtocol, forKey: .publishProtocol)
    }
}

/// Reads one field at a time, turning a wrong type into a warning instead of a thrown error.
private struct LenientReader {
    let container: KeyedDecodingContainer<StreamSettings.CodingKeys>
    var warnings: [SettingsWarning] = []

    private mutating func wrongType(_ key: StreamSettings.CodingKeys, expected: String) {
        warnings.append(SettingsWarning(key: key.stringValue,
                                        message: "'\(key.stringValue)' is not \(expected); using the default"))
    }

    /// Whether the key holds a usable value (missing and null take the default silently).
    private func present(_ key: StreamSettings.CodingKeys) -> Bool {
        container.contains(key) && ((try? container.decodeNil(forKey: key)) == false)
    }

    mutating func quality() -> StreamSettings.Quality? {
        guard present(.quality) else { return nil }
        if let text = try? container.decode(String.self, forKey: .quality),
           let quality = StreamSettings.Quality(rawValue: text.lowercased()) {
            return quality
        }
        if let edge = try? container.decode(Int.self, forKey: .quality),
           let quality = StreamSettings.Quality(shortEdge: edge) {
            return quality
        }
        wrongType(.quality, expected: "one of 480p, 720p, 1080p")
        return nil
    }

    mutating func frameRate() -> StreamSettings.FrameRate? {
        guard present(.fps) else { return nil }
        guard let fps = integerValue(.fps) else {
            wrongType(.fps, expected: "a number")
            return nil
        }
        let nearest = StreamSettings.FrameRate.nearest(to: fps)
        if nearest.rawValue != fps {
            warnings.append(SettingsWarning(key: "fps", message: "fps \(fps) is not one of 24, 30, 60; "
                                                + "using \(nearest.rawValue)"))
        }
        return nearest
    }

    mutating func integer(_ key: StreamSettings.CodingKeys) -> Int? {
        guard present(key) else { return nil }
        guard let value = integerValue(key) else {
            wrongType(key, expected: "a number")
            return nil
        }
        return value
    }

    /// An integer, or a finite floating-point number rounded and saturated to `Int`'s range.
    private func integerValue(_ key: StreamSettings.CodingKeys) -> Int? {
        if let value = try? container.decode(Int.self, forKey: key) { return value }
        guard let value = try? container.decode(Double.self, forKey: key), value.isFinite else { return nil }
        if value >= Double(Int.max) { return Int.max }
        if value <= Double(Int.min) { return Int.min }
        return Int(value.rounded())
    }

    mutating func double(_ key: StreamSettings.CodingKeys) -> Double? {
        guard present(key) else { return nil }
        guard let value = try? container.decode(Double.self, forKey: key), value.isFinite else {
            wrongType(key, expected: "a finite number")
            return nil
        }
        return value
    }

    mutating func bool(_ key: StreamSettings.CodingKeys) -> Bool? {
        guard present(key) else { return nil }
        guard let value = try? container.decode(Bool.self, forKey: key) else {
            wrongType(key, expected: "true or false")
            return nil
        }
        return value
    }

    mutating func rawEnum<T: RawRepresentable & CaseIterable>(_ key: StreamSettings.CodingKeys, _ type: T.Type) -> T?
    where T.RawValue == String {
        guard present(key) else { return nil }
        guard let text = try? container.decode(String.self, forKey: key), let value = T(rawValue: text) else {
            let choices = T.allCases.map(\.rawValue).joined(separator: ", ")
            wrongType(key, expected: "one of \(choices)")
            return nil
        }
        return value
    }

    mutating func optionalString(_ key: StreamSettings.CodingKeys) -> String? {
        guard present(key) else { return nil }
        guard let value = try? container.decode(String.self, forKey: key) else {
            wrongType(key, expected: "a string")
            return nil
        }
        return value
    }
}
