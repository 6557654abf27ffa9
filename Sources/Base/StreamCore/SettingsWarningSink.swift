#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking

/// Collects the warnings produced while decoding `StreamSettings` (pass it in a decoder's `userInfo`).
public final class SettingsWarningSink: Sendable {
    /// The `userInfo` key under which `StreamSettings.init(from:)` looks for a sink.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "com.joeblau.Stream.settingsWarnings")!

    private let storage = Locked<[SettingsWarning]>([])

    /// Creates an empty sink.
    public init() {}

    /// Adds warnings.
    /// - Parameter warnings: warnings to record, in order.
    public func append(contentsOf warnings: [SettingsWarning]) {
        storage.withLock { $0 += warnings }
    }

    /// The warnings recorded so far, oldest first.
    public var warnings: [SettingsWarning] { storage.withLock { $0 } }
}
