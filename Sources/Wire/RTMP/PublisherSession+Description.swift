/// Descriptions that are safe to log: the stream key is shown as "••••", and so is a query on the app (ingests
/// put tokens there: `live?token=••••` becomes `live?••••`).
extension PublisherSession.Configuration: CustomStringConvertible, CustomDebugStringConvertible {
    /// The configuration with the stream key and the app's query redacted.
    public var description: String {
        "PublisherSession.Configuration(app: \(Self.maskingQuery(app)), tcUrl: \(Self.maskingQuery(tcUrl)), "
            + "streamKey: ••••, chunkSize: \(chunkSize))"
    }

    /// `text` up to its `?`, then `?••••` when it has a query.
    static func maskingQuery(_ text: String) -> String {
        guard let question = text.firstIndex(of: "?") else { return text }
        return text[..<question] + "?••••"
    }

    /// Same as `description`: the stream key is redacted in debug output too.
    public var debugDescription: String { description }
}

extension PublisherSession: CustomStringConvertible {
    /// The session's target (without the stream key) and whether it is publishing.
    public var description: String {
        "PublisherSession(app: \(Configuration.maskingQuery(configuration.app)), "
            + "tcUrl: \(Configuration.maskingQuery(configuration.tcUrl)), publishing: \(isPublishing))"
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
