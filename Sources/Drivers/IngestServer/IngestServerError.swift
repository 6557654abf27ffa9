/// Why the ingest server could not start or do what was asked: a ``code`` to switch on, and a human message.
public struct IngestServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The server could not start: its event loop, or listening on the address.
        case startFailed
        /// The recording directory cannot be written.
        case recording
        /// The keys file cannot be read or holds no key.
        case keysFile
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do.
    public let description: String

    /// Creates an error with a code and a human message.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
