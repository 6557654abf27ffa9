/// Descriptions that are safe to log: stream names of publishers (stream keys) are shown as "••••".
extension ServerSession.Action: CustomStringConvertible {
    /// A log-friendly summary: byte counts instead of bytes, and no publish stream name.
    public var description: String {
        switch self {
        case .write(let bytes): "write(\(bytes.count) bytes)"
        case .connected(let app): "connected(app: \(app))"
        case .authorizePublish(let app, _): "authorizePublish(app: \(app), streamName: ••••)"
        case .publishStarted(let streamID): "publishStarted(streamID: \(streamID))"
        case .publishStopped(let streamID): "publishStopped(streamID: \(streamID))"
        case .play(let app, let name, let streamID): "play(app: \(app), streamName: \(name), streamID: \(streamID))"
        case .playStopped(let streamID): "playStopped(streamID: \(streamID))"
        case .media(let media): "media(\(media.kind), timestamp: \(media.timestamp), \(media.body.count) bytes)"
        case .metadata(let streamID, let metadata): "metadata(streamID: \(streamID), \(metadata.count) properties)"
        case .close: "close"
        case .failed(let error): "failed(\(error))"
        }
    }
}
