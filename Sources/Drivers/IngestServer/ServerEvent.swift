/// Something the ingest server did that an operator wants to see. Stream keys appear only as ``StreamKeyTag``s.
public enum ServerEvent: Sendable, Equatable, CustomStringConvertible {
    /// A publisher went live on `app` with the key tagged `keyTag`.
    case publishStarted(app: String, keyTag: String, peer: String)
    /// A publisher stopped or disconnected.
    case publishStopped(app: String, keyTag: String, peer: String)
    /// A publish was refused (unknown key, or the stream is already live).
    case publishRefused(app: String, keyTag: String, peer: String, reason: String)
    /// A player started watching.
    case playStarted(app: String, keyTag: String, peer: String)
    /// A player left.
    case playStopped(app: String, keyTag: String, peer: String)
    /// A player could not keep up and skipped to the next keyframe.
    case playerBehind(app: String, keyTag: String, peer: String, queuedBytes: Int)
    /// A recording file was opened.
    case recordingStarted(path: String)
    /// A recording file was closed: its size and the span of its media.
    case recordingFinished(path: String, bytes: Int, seconds: Double)
    /// Writing a recording failed (a full disk, a directory that cannot be written); the stream goes on without
    /// it, and the reason says what was kept and when recording starts again.
    case recordingFailed(path: String, reason: String)
    /// A recording file was removed instead of kept: it held no audio or video frame.
    case recordingRemoved(path: String, reason: String)
    /// A connection ended with an error (protocol violation, timeout, TLS failure).
    case connectionFailed(peer: String, reason: String)
    /// Peers were accepted and closed at once because `limit` connections were open on their listener.
    /// Rate-limited: the first refusal after a quiet spell is reported alone, later ones are counted and reported
    /// together at most every few seconds (`seconds` is the span they were counted over).
    case connectionsRefused(count: Int, limit: Int, lastPeer: String, seconds: Int?)

    /// One log line.
    public var description: String {
        switch self {
        case .publishStarted(let app, let tag, let peer): "publish started: \(app)/\(tag) from \(peer)"
        case .publishStopped(let app, let tag, let peer): "publish stopped: \(app)/\(tag) from \(peer)"
        case .publishRefused(let app, let tag, let peer, let reason):
            "publish refused: \(app)/\(tag) from \(peer): \(reason)"
        case .playStarted(let app, let tag, let peer): "play started: \(app)/\(tag) by \(peer)"
        case .playStopped(let app, let tag, let peer): "play stopped: \(app)/\(tag) by \(peer)"
        case .playerBehind(let app, let tag, let peer, let queued):
            "player \(peer) of \(app)/\(tag) fell behind (\(queued) bytes queued): skipping to the next keyframe"
        case .recordingStarted(let path): "recording to \(path)"
        case .recordingFinished(let path, let bytes, let seconds):
            "recording finished: \(path) (\(bytes) bytes, \((seconds * 10).rounded() / 10) s)"
        case .recordingFailed(let path, let reason): "recording to \(path) failed: \(reason)"
        case .recordingRemoved(let path, let reason): "recording \(path) removed: \(reason)"
        case .connectionFailed(let peer, let reason): "connection from \(peer) failed: \(reason)"
        case .connectionsRefused(1, let limit, let peer, nil):
            "connection from \(peer) refused: \(limit) connections are open, the most allowed"
        case .connectionsRefused(let count, let limit, let peer, let seconds):
            "refused \(count) connection\(count == 1 ? "" : "s")"
                + (seconds.map { " in the last \($0) s" } ?? "")
                + " (\(limit) open, the most allowed); the last from \(peer)"
        }
    }
}
