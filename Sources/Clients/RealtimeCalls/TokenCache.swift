import Digest
import JSON

/// When the client asks the app for a token again: at the first connection, when the token it holds expires
/// (read from its `exp` claim, without verifying: the server verifies), and when the server refused it.
///
/// Pure: the time comes in (seconds since 1970).
public struct TokenCache: Sendable {
    /// Ask again this long before the token's `exp`, so a reconnect never presents one that expires on the way.
    public static let refreshMargin: Int64 = 30

    private var token: String?
    private var expiresAt: Int64?
    private var fetched = false

    /// Creates an empty cache.
    public init() {}

    /// The token to present now, or nil when the app must be asked (first use, expired, refused).
    /// - Returns: `.some(token)` to reuse (the inner nil: a visitor), `nil` to ask.
    public func current(now: Int64) -> String?? {
        guard fetched else { return nil }
        if let expiresAt, expiresAt - Self.refreshMargin <= now { return nil }
        return .some(token)
    }

    /// Holds what the app gave.
    public mutating func store(_ token: String?) {
        self.token = token
        expiresAt = token.flatMap(Self.expiry)
        fetched = true
    }

    /// The server refused the token: ask the app at the next connection.
    public mutating func invalidate() {
        fetched = false
        token = nil
        expiresAt = nil
    }

    /// The `exp` claim of a compact JWS, nil when it cannot be read.
    public static func expiry(of token: String) -> Int64? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64.decode(String(parts[1]), alphabet: .url),
              let claims = try? JSONParser.parse(payload) else { return nil }
        return claims["exp"]?.integerValue
    }
}
