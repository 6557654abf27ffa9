/// Keeps the connection URL and stream key: the Keychain on Apple platforms, a 0600 file elsewhere.
public protocol CredentialStore: Sendable {
    /// The stored credentials, or nil when none are stored.
    /// - Throws: `StreamCoreError` when they exist but cannot be read safely.
    func load() throws -> StreamCredentials?

    /// Replaces the stored credentials.
    /// - Throws: `StreamCoreError` when they cannot be stored.
    func save(_ credentials: StreamCredentials) throws

    /// Removes the stored credentials; nothing stored is not an error.
    /// - Throws: `StreamCoreError` when they cannot be removed.
    func clear() throws

    /// Where the credentials live, for messages (never contains the key).
    var location: String { get }
}
