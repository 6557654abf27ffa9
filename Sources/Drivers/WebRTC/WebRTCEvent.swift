/// What a publisher session tells its owner while it runs.
public enum WebRTCEvent: Sendable, Hashable {
    /// ICE and DTLS are up: media flows to this address.
    case connected(remote: String)
    /// The receiver asked for a keyframe (PLI or FIR), or the session just connected.
    case keyframeRequested
    /// The bandwidth estimate changed: the video encoder should follow it.
    case bitrateEstimate(kbps: Int)
    /// The session failed; a new one may be started if the error is transient.
    case failed(WebRTCError)
}
