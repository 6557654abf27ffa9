#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Persists the non-sensitive `StreamSettings` as one JSON blob under `stream.settings.v1` in a shared store.
///
/// Reading never fails: unknown keys are ignored, missing keys take defaults, out-of-range values are clamped,
/// each with a `SettingsWarning`. A blob that cannot be decoded at all (not JSON, not an object, larger than
/// `maximumBlobSize`) is never silently overwritten: it is moved aside and a warning says where; when it cannot
/// be moved (a read-only directory) or the store cannot be read at all, a warning says so and the defaults are
/// used. Saving is what fails then, with an error saying why nothing can be saved.
public struct SettingsStore: Sendable {
    /// The largest blob that is read; real settings are a few hundred bytes.
    public static let maximumBlobSize = 64 * 1024

    /// Where the blob lives.
    public let storage: any SharedBlobStorage
    /// The key of the blob (`stream.settings.v1`).
    public let key: String
    private let now: @Sendable () -> Date

    /// Creates a store.
    /// - Parameters:
    ///   - storage: the shared store (`FileBlobStorage`, or `UserDefaultsBlobStorage` on Apple platforms).
    ///   - key: the blob's key.
    ///   - now: the clock used to name a set-aside blob.
    public init(storage: any SharedBlobStorage, key: String = AppGroup.settingsKey,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.key = key
        self.now = now
    }

    /// A store of `stream.settings.v1.json` in a configuration directory (Linux, the CLI, tests).
    /// - Parameter paths: the resolved configuration directory.
    public static func file(paths: XDGPaths) -> SettingsStore {
        SettingsStore(storage: FileBlobStorage(directory: paths.configDirectory))
    }

    #if canImport(Darwin)
    /// The store shared by the app and its broadcast extension: the App Group's user defaults.
    public static func appGroup() -> SettingsStore {
        SettingsStore(storage: UserDefaultsBlobStorage(suiteName: AppGroup.identifier))
    }
    #endif

    /// Where the blob lives, for messages.
    public var location: String { storage.location(key: key) }

    /// Loads the settings, falling back to defaults for anything unusable.
    ///
    /// An undecodable blob is moved aside here, so no later `save` can overwrite it. Nothing makes loading fail:
    /// a store that cannot be read, or a corrupt blob that cannot be moved aside (a read-only directory), gives
    /// the defaults and a warning saying so.
    /// - Returns: the settings, what was fixed, and where a corrupt blob went.
    public func load() -> SettingsLoadResult {
        let stored: BlobReadResult
        do {
            stored = try storage.read(key: key, maximumSize: Self.maximumBlobSize)
        } catch {
            let warning = SettingsWarning(key: "*", message: "the stored settings cannot be read (\(error)); "
                                            + "defaults are used instead")
            return SettingsLoadResult(settings: StreamSettings(), warnings: [warning], setAsideLocation: nil,
                                      wasStored: false)
        }
        switch stored {
        case .missing:
            return SettingsLoadResult(settings: StreamSettings(), warnings: [], setAsideLocation: nil, wasStored: false)
        case .tooLarge(let byteCount):
            return loadingDefaults(settingAsideBecause: "it is \(byteCount) bytes, more than the "
                                    + "\(Self.maximumBlobSize) allowed")
        case .notData:
            return loadingDefaults(settingAsideBecause: "it is not a JSON blob")
        case .data(let data):
            switch Self.decode(data) {
            case .success(let (settings, warnings)):
                return SettingsLoadResult(settings: settings, warnings: warnings, setAsideLocation: nil,
                                          wasStored: true)
            case .failure(let reason):
                return loadingDefaults(settingAsideBecause: reason.message)
            }
        }
    }

    /// Saves settings after clamping them.
    ///
    /// If the stored blob is undecodable (written by something else since `load`), it is moved aside first.
    /// - Parameter settings: the settings to store.
    /// - Returns: warnings for values that were clamped, and for a blob moved aside.
    /// - Throws: `StreamCoreError` when the blob cannot be written.
    @discardableResult
    public func save(_ settings: StreamSettings) throws -> [SettingsWarning] {
        var warnings: [SettingsWarning] = []
        do {
            let existing = try storage.read(key: key, maximumSize: Self.maximumBlobSize)
            let existingIsUsable: Bool
            switch existing {
            case .missing: existingIsUsable = true
            case .tooLarge, .notData: existingIsUsable = false
            case .data(let data): existingIsUsable = (try? Self.decode(data).get()) != nil
            }
            if !existingIsUsable {
                warnings.append(try setAside(reason: "it could not be decoded").warning)
            }
            var clamped = settings
            warnings += clamped.clamp()
            try storage.write(Self.encode(clamped), key: key)
        } catch {
            throw StreamCoreError(.io, "cannot save the settings to \(location): \(error); nothing was changed "
                                    + "(make the directory writable, or set XDG_CONFIG_HOME to one that is)")
        }
        return warnings
    }

    /// Stores the defaults.
    /// - Returns: a warning if an undecodable blob had to be moved aside first.
    /// - Throws: `StreamCoreError` when the blob cannot be written.
    @discardableResult
    public func reset() throws -> [SettingsWarning] {
        try save(StreamSettings())
    }

    /// Encodes settings as the stored blob: compact JSON with sorted keys.
    public static func encode(_ settings: StreamSettings) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings, integers, booleans and a finite double cannot fail.
        return (try? encoder.encode(settings)) ?? Data("{}".utf8)
    }

    /// Why a blob could not be decoded at all.
    public struct DecodeFailure: Error, Sendable, Equatable {
        /// A short human reason (no stored content is echoed).
        public let message: String
    }

    /// Decodes a blob leniently.
    /// - Parameter data: the stored bytes.
    /// - Returns: the settings and the warnings about fixed values, or why the blob is unusable.
    public static func decode(_ data: Data) -> Result<(StreamSettings, [SettingsWarning]), DecodeFailure> {
        guard data.count <= maximumBlobSize else {
            return .failure(DecodeFailure(message: "it is larger than \(maximumBlobSize) bytes"))
        }
        let sink = SettingsWarningSink()
        let decoder = JSONDecoder()
        decoder.userInfo[SettingsWarningSink.userInfoKey] = sink
        do {
            let settings = try decoder.decode(StreamSettings.self, from: data)
            return .success((settings, sink.warnings))
        } catch DecodingError.typeMismatch {
            return .failure(DecodeFailure(message: "it is JSON but not an object"))
        } catch {
            return .failure(DecodeFailure(message: "it is not valid JSON"))
        }
    }

    /// Moves the stored blob aside; returns where it went and the warning telling the user.
    private func setAside(reason: String) throws -> (destination: String, warning: SettingsWarning) {
        let destination = try storage.setAside(key: key, stamp: Self.stamp(now()))
        let warning = SettingsWarning(key: "*", message: "the stored settings could not be used (\(reason)); "
                                        + "they were kept as \(destination) and defaults are used instead")
        return (destination, warning)
    }

    private func loadingDefaults(settingAsideBecause reason: String) -> SettingsLoadResult {
        do {
            let (destination, warning) = try setAside(reason: reason)
            return SettingsLoadResult(settings: StreamSettings(), warnings: [warning], setAsideLocation: destination,
                                      wasStored: false)
        } catch {
            let warning = SettingsWarning(key: "*", message: "the stored settings in \(location) could not be used "
                                            + "(\(reason)) and could not be moved aside (\(error)); defaults are used "
                                            + "instead, and the file is left as it is")
            return SettingsLoadResult(settings: StreamSettings(), warnings: [warning], setAsideLocation: nil,
                                      wasStored: false)
        }
    }

    /// A UTC timestamp for file and key names, e.g. `20261129T181500Z`.
    static func stamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard,
                                               timeSeparator: .omitted, timeZone: .gmt))
    }
}

/// What `SettingsStore.load()` found.
public struct SettingsLoadResult: Sendable {
    /// The usable settings (defaults where nothing usable was stored).
    public var settings: StreamSettings
    /// Every value that was clamped or replaced, and a corrupt blob that was moved aside.
    public var warnings: [SettingsWarning]
    /// Where an undecodable blob was moved, if one was.
    public var setAsideLocation: String?
    /// Whether a decodable blob was stored.
    public var wasStored: Bool
}
