/// Why the ingest server could not start or do what was asked.
public struct IngestServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What happened and what to do.
    public let description: String

    /// Creates an error with a human message.
    public init(_ description: String) {
        self.description = description
    }
}
