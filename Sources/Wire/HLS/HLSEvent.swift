/// What changed in a packaged stream after an input: what a server holding requests must look at again.
public enum HLSEvent: Sendable, Hashable {
    /// A part is complete and listed.
    case partAdded(msn: Int, index: Int)
    /// A segment is complete and listed with its EXTINF.
    case segmentAdded(msn: Int)
    /// The playlist ended (EXT-X-ENDLIST).
    case ended
}
