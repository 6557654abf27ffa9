/// A request method (RFC 9110 §9): a case-sensitive token.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The token as sent on the wire ("GET").
    public let rawValue: String

    /// Wraps a method token. The request decoder only produces valid tokens; methods built by hand are sent as
    /// given.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// "GET".
    public var description: String { rawValue }

    /// RFC 9110 §9.2.2: methods whose repetition has the effect of one request; a client may retry them.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: true
        default: false
        }
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    public static let connect = HTTPMethod(rawValue: "CONNECT")
    public static let trace = HTTPMethod(rawValue: "TRACE")
}
