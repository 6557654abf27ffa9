import WHIP

/// Why a WHIP publish failed: the endpoint refused, the session could not connect, or the endpoint was unreachable.
/// Its description never contains the token.
public enum WHIPPublishError: Error, Hashable, CustomStringConvertible {
    /// The endpoint answered with a refusal or something that is not WHIP.
    case endpoint(WHIPError)
    /// The answer was unusable, or ICE, DTLS or SRTP failed.
    case session(WebRTCError)
    /// The HTTP request did not get a response.
    case unreachable(String)

    /// Whether a later attempt may work (a server error, a lost path, a network failure), as opposed to a refusal
    /// or a broken answer, which would fail the same way again.
    public var isTransient: Bool {
        switch self {
        case .endpoint(let error): error.isTransient
        case .session(let error): error.isTransient
        case .unreachable: true
        }
    }

    /// The reason, for people.
    public var description: String {
        switch self {
        case .endpoint(let error): error.message
        case .session(let error): error.message
        case .unreachable(let reason): reason
        }
    }
}
