#if canImport(Darwin)
import Foundation

/// Stores blobs in the App Group's shared user defaults (`group.com.joeblau.Stream`), as `Data`.
/// A set-aside blob is copied to `<key>.corrupt-<stamp>` in the same suite, then removed from `key`.
public struct UserDefaultsBlobStorage: SharedBlobStorage {
    /// The user defaults suite (an App Group identifier).
    public let suiteName: String

    /// Creates a storage over a suite; `UserDefaults` itself is opened per call so this value stays `Sendable`.
    /// - Parameter suiteName: the App Group identifier.
    public init(suiteName: String = AppGroup.identifier) {
        self.suiteName = suiteName
    }

    private func defaults() throws -> UserDefaults {
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw StreamCoreError(.io, "cannot open the shared settings of \(suiteName): "
                                    + "check the App Group entitlement")
        }
        return defaults
    }

    /// Reads the `Data` (or UTF-8 string) stored under `key`.
    public func read(key: String, maximumSize: Int) throws -> BlobReadResult {
        guard let object = try defaults().object(forKey: key) else { return .missing }
        let data: Data
        if let bytes = object as? Data {
            data = bytes
        } else if let text = object as? String {
            data = Data(text.utf8)
        } else {
            return .notData
        }
        return data.count > maximumSize ? .tooLarge(byteCount: data.count) : .data(data)
    }

    /// Stores `data` under `key`.
    public func write(_ data: Data, key: String) throws {
        try defaults().set(data, forKey: key)
    }

    /// Copies the value under `key` to `<key>.corrupt-<stamp>` and removes `key`.
    public func setAside(key: String, stamp: String) throws -> String {
        let defaults = try defaults()
        let target = "\(key).corrupt-\(stamp)"
        defaults.set(defaults.object(forKey: key), forKey: target)
        defaults.removeObject(forKey: key)
        return "\(suiteName) key \(target)"
    }

    /// The suite and key.
    public func location(key: String) -> String { "\(suiteName) key \(key)" }
}
#endif
