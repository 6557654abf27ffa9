/// Identifiers shared by the app, its broadcast extension and the command-line tool.
public enum AppGroup {
    /// The App Group whose user defaults carry the settings blob.
    public static let identifier = "group.com.joeblau.Stream"
    /// The key under which the settings blob (one JSON object) is stored.
    public static let settingsKey = "stream.settings.v1"
    /// The Keychain service of the connection URL and stream key.
    public static let keychainService = "com.joeblau.Stream.connection"
    /// The Keychain account of the connection item (there is one connection).
    public static let keychainAccount = "default"
    /// The shared Keychain access group without its team prefix (`$(AppIdentifierPrefix)` in the entitlements).
    public static let keychainAccessGroupSuffix = "com.joeblau.Stream"

    /// The full Keychain access group for a team.
    /// - Parameter appIdentifierPrefix: the team prefix, with or without its trailing dot (e.g. `ABCDE12345.`).
    /// - Returns: e.g. `ABCDE12345.com.joeblau.Stream`.
    public static func keychainAccessGroup(appIdentifierPrefix: String) -> String {
        let prefix = appIdentifierPrefix.hasSuffix(".") ? appIdentifierPrefix : appIdentifierPrefix + "."
        return prefix + keychainAccessGroupSuffix
    }
}
