/// Why the WebRTC server refused an offer or could not start: a stable ``code`` to switch on (the WHIP routes map
/// it to an HTTP status) and a ``reason`` a person can act on. Never carries a stream key or a session id.
public struct WebRTCServerError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// The UDP port or the DTLS certificate could not be set up, or the server is stopped.
        case setup
        /// The offer is not SDP this server can read (HTTP 400): the reason names the line or what is missing.
        case badOffer
        /// The offer is SDP, but offers nothing this server takes: no H.264 or Opus, no BUNDLE (HTTP 406).
        case unsupportedOffer
        /// Every session slot is taken (HTTP 503 with `Retry-After`).
        case full
        /// WHEP: nothing is publishing at the address asked for (HTTP 404).
        case notFound
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do.
    public let reason: String
    /// For ``Code/full``: when a new offer may succeed, in seconds.
    public let retryAfter: Int?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, retryAfter: Int? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// The reason.
    public var description: String { reason }
}
