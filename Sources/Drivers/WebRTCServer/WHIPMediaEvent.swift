import FLV

/// A WHIP publish's media, as FLV tags like an RTMP publish's (`IngestMediaEvent`'s shape), for LL-HLS.
/// Delivered on the server's event loop thread, in order per session. The Opus is transcoded to AAC
/// (`WHIPAudioTags`): audio tags come beside the video's, on the same timeline.
public enum WHIPMediaEvent: Sendable {
    /// The session connected (ICE and DTLS): the publish started, as an RTMP publish does before its first frame.
    case started(app: String, streamTag: String)
    /// One tag: an AVC sequence header or a frame, or an AAC sequence header (first, at time 0) or frame.
    case tag(app: String, streamTag: String, FLVTag)
    /// The session ended.
    case stopped(app: String, streamTag: String)
}
