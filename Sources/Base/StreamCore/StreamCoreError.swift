/// An error from StreamCore's stores: what happened and what to do about it. Never contains a secret.
public struct StreamCoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad category of the failure, for callers that react differently to each.
    public enum Kind: Sendable, Equatable {
        /// Reading or writing a file or the shared store failed.
        case io
        /// The stored credentials could not be decoded.
        case corruptCredentials
        /// The credentials file can be read by other users.
        case insecureCredentialsFile
        /// The Keychain refused an operation.
        case keychain
        /// No configuration directory could be determined.
        case noConfigDirectory
    }

    /// The category of the failure.
    public let kind: Kind
    /// A human sentence saying what happened and what to do.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - kind: the category.
    ///   - message: what happened and what to do; must not contain a secret.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
