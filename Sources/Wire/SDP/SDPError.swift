/// A session description that cannot be used: what is wrong with it, in words a person can act on.
///
/// Compare `code` to tell failures apart; show `message` (also the `description`) to people.
public struct SDPError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure, comparable without parsing the message.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case malformed
            case missing
            case mismatch
            case rejected
            case unsupported
            case tooLarge
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A line does not follow RFC 8866's grammar (`x=value`, numbers where numbers go, ...).
        public static let malformed = Code(.malformed)
        /// Something the answer must carry is not there (ICE credentials, a fingerprint, a media section).
        public static let missing = Code(.missing)
        /// The answer does not match the offer (another mid, kind or payload type than offered).
        public static let mismatch = Code(.mismatch)
        /// The peer turned a media section down (port 0 or inactive).
        public static let rejected = Code(.rejected)
        /// The peer chose something this publisher cannot do (another transport, another codec, no rtcp-mux).
        public static let unsupported = Code(.unsupported)
        /// The description is larger than ``SessionDescription/maximumSize``.
        public static let tooLarge = Code(.tooLarge)

        /// The code's name, for logs.
        public var description: String {
            switch base {
            case .malformed: "malformed"
            case .missing: "missing"
            case .mismatch: "mismatch"
            case .rejected: "rejected"
            case .unsupported: "unsupported"
            case .tooLarge: "tooLarge"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What is wrong and, where it helps, what to do.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: a sentence saying what is wrong.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
