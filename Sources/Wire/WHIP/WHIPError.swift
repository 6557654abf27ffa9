/// A WHIP exchange that failed: what the endpoint said, in words a person can act on. Never holds the token.
public struct WHIPError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case unauthorized, notFound, refused, serverError, badResponse, badURL
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// 401 or 403: the token is wrong or missing.
        public static let unauthorized = Code(.unauthorized)
        /// 404: no WHIP endpoint (or no session) at that URL.
        public static let notFound = Code(.notFound)
        /// Another 4xx: the endpoint refused the offer.
        public static let refused = Code(.refused)
        /// 5xx or 429: the endpoint failed or is busy; a later attempt may work.
        public static let serverError = Code(.serverError)
        /// A success without what WHIP requires (Location, an SDP body), or too many redirects.
        public static let badResponse = Code(.badResponse)
        /// The URL is not an http(s) URL.
        public static let badURL = Code(.badURL)

        /// The code's name.
        public var description: String {
            switch base {
            case .unauthorized: "unauthorized"
            case .notFound: "notFound"
            case .refused: "refused"
            case .serverError: "serverError"
            case .badResponse: "badResponse"
            case .badURL: "badURL"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do; the token is never in it.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether trying again later may work (server errors and rate limits), as opposed to a refusal.
    public var isTransient: Bool { code == .serverError }

    /// The human message.
    public var description: String { message }
}
