/// A value in stored settings that was unusable and replaced (clamped, or reset to its default).
public struct SettingsWarning: Sendable, Equatable, CustomStringConvertible {
    /// The JSON key of the value (e.g. `videoBitrateKbps`), or `*` for the whole blob.
    public let key: String
    /// What was wrong and what is used instead.
    public let message: String

    /// Creates a warning.
    /// - Parameters:
    ///   - key: the JSON key concerned.
    ///   - message: what was wrong and what is used instead; never echoes stored strings.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
