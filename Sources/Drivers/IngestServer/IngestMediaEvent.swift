import FLV

/// A publish's media as the ingest receives it, for what packages it further (LL-HLS). Stream keys appear only as
/// tags: ``StreamKeyTag/media(_:app:key:)`` when the server has a ``RTMPServer/Configuration/mediaTagKey``, else
/// ``StreamKeyTag/tag(_:)``.
public enum IngestMediaEvent: Sendable {
    /// A publisher went live on `app` with the key tagged `keyTag`.
    case publishStarted(app: String, keyTag: String)
    /// One audio, video or data message of that publish, as an FLV tag (sequence headers included).
    case tag(app: String, keyTag: String, FLVTag)
    /// The publish ended.
    case publishStopped(app: String, keyTag: String)
}
