/// Descriptions that are safe to log: the stream key is shown as "••••".
extension PublisherSession.Configuration: CustomStringConvertible, CustomDebugStringConvertible {
    /// The configuration with the stream key redacted.
    public var description: String {
        "PublisherSession.Configuration(app: \(app), tcUrl: \(tcUrl), streamKey: ••••, chunkSize: \(chunkSize))"
    }

    /// Same as `description`: the stream key is redacted in debug output too.
    public var debugDescription: String { description }
}

extension PublisherSession: CustomStringConvertible {
    /// The session's target (without the stream key) and whether it is publishing.
    public var description: String {
        "PublisherSession(app: \(configuration.app), tcUrl: \(configuration.tcUrl), publishing: \(isPublishing))"
    }
}

extension PublisherSession.Action: CustomStringConvertible {
    /// A log-friendly summary: byte counts instead of bytes (a `publish` command carries the stream key).
    public var description: String {
        switch self {
        case .write(let bytes): "write(\(bytes.count) bytes)"
        case .published(let streamID): "published(streamID: \(streamID))"
        case .failed(let error): "failed(\(error))"
        case .closed: "closed"
        }
    }
}
