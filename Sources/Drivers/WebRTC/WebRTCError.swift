/// A WebRTC publish failure: what went wrong, in words a person can act on.
///
/// Compare `code` to tell failures apart; show `message` (also the `description`) to people.
public struct WebRTCError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case setup, answer, ice, dtls, srtp, closed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A socket, certificate or library could not be set up here.
        public static let setup = Code(.setup)
        /// The endpoint's SDP answer cannot be used.
        public static let answer = Code(.answer)
        /// No path to the endpoint, or the path died (consent lost).
        public static let ice = Code(.ice)
        /// The DTLS handshake failed or the certificate did not match.
        public static let dtls = Code(.dtls)
        /// SRTP could not be keyed.
        public static let srtp = Code(.srtp)
        /// The session was closed.
        public static let closed = Code(.closed)

        /// The code's name.
        public var description: String {
            switch base {
            case .setup: "setup"
            case .answer: "answer"
            case .ice: "ice"
            case .dtls: "dtls"
            case .srtp: "srtp"
            case .closed: "closed"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do.
    public let message: String
    /// For a lost path: how long the endpoint had sent nothing when it was given up (the outage began then).
    public let silentFor: Duration?

    /// Creates an error.
    public init(_ code: Code, _ message: String, silentFor: Duration? = nil) {
        self.code = code
        self.message = message
        self.silentFor = silentFor
    }

    /// Whether a new session may work (a lost path or a failed handshake, not a refused answer).
    public var isTransient: Bool { code == .ice || code == .dtls || code == .closed }

    /// The human message.
    public var description: String { message }
}
