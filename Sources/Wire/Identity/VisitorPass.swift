import Digest

/// A visitor's stable, unguessable identity (issue 34 item 5): a visitor without an access token gets one at its
/// first join and brings it back at the next, so slow mode, timeouts, kicks and bans follow it across reconnects, as
/// they follow a user.
///
/// The ``id`` is public (messages carry it as their `user`, moderators name it): `visitor:` then 22 base64url
/// characters. The ``token`` proves it: `v1.`, the same 22 characters, a dot, and an HMAC-SHA256 of them cut to
/// 128 bits, so nobody who only saw the id can act as that visitor. It does not expire: a visitor is who holds it.
/// The prefix `visitor:` is reserved: an access token whose `sub` starts with it is refused (``AccessToken``).
public struct VisitorPass: Sendable, Hashable {
    /// The visitor's id, e.g. "visitor:q83vEjRWeJC8Xl2Xk5aXmQ".
    public let id: String
    /// What the visitor keeps and sends back at its next join; a secret, like an access token.
    public let token: String

    /// The id's random part as bytes.
    public var random: [UInt8] {
        Base64.decode(String(id.utf8.dropFirst(Self.idPrefix.utf8.count))!, alphabet: .url) ?? []
    }

    /// What every visitor id starts with: a user id with it is a visitor's, never an app user's.
    public static let idPrefix = "visitor:"
    /// What every visitor token starts with (its version).
    public static let tokenPrefix = "v1."
    /// The random part's length in bytes (128 bits).
    public static let randomLength = 16
    /// The MAC's length in bytes (128 bits).
    static let macLength = 16

    private init(body: String, key: [UInt8]) {
        id = Self.idPrefix + body
        token = Self.tokenPrefix + body + "." + Base64.encode(Self.code(key: key, body: body), alphabet: .url)
    }

    /// A new visitor.
    /// - Parameters:
    ///   - random: ``randomLength`` bytes from the system's random source, or a keyed hash of what the id must stay
    ///     the same for (``derived(from:key:)``).
    ///   - key: a key derived from the server's secret for this use only.
    public static func minted(random: [UInt8], key: [UInt8]) -> VisitorPass {
        precondition(random.count == randomLength, "a visitor id has \(randomLength) random bytes")
        return VisitorPass(body: Base64.encode(random, alphabet: .url), key: key)
    }

    /// The visitor every fresh visitor from one source becomes once that source has had its share of new ids (its
    /// address, say): the same id each time, so throwing the token away gains nothing.
    public static func derived(from source: String, key: [UInt8]) -> VisitorPass {
        let random = HMACSHA256.authenticationCode(key: key, message: Array("stream visitor of \(source)".utf8))
        return minted(random: Array(random.prefix(randomLength)), key: key)
    }

    /// Checks a token a visitor brought back.
    /// - Throws: ``TokenError`` `.malformed` or `.badSignature`; the reason never holds the token.
    public static func verify(_ token: String, key: [UInt8]) throws(TokenError) -> VisitorPass {
        let bodyLength = (randomLength * 4 + 2) / 3
        let macTextLength = (macLength * 4 + 2) / 3
        guard token.utf8.count == tokenPrefix.utf8.count + bodyLength + 1 + macTextLength,
              token.hasPrefix(tokenPrefix) else {
            throw TokenError(.malformed, "not a visitor token")
        }
        let rest = token.utf8.dropFirst(tokenPrefix.utf8.count)
        let body = String(Substring(rest.prefix(bodyLength)))
        let dot = rest.dropFirst(bodyLength)
        guard dot.first == UInt8(ascii: "."),
              let random = Base64.decode(body, alphabet: .url), random.count == randomLength,
              let mac = Base64.decode(String(Substring(dot.dropFirst())), alphabet: .url), mac.count == macLength
        else {
            throw TokenError(.malformed, "not a visitor token")
        }
        guard ConstantTime.equal(mac, code(key: key, body: body)) else {
            throw TokenError(.badSignature, "the visitor token is not this server's")
        }
        return VisitorPass(body: body, key: key)
    }

    /// Whether a user id is a visitor's (nil, from before visitors had ids, is one too).
    public static func isVisitor(_ user: String?) -> Bool {
        user.map { $0.utf8.starts(with: idPrefix.utf8) } ?? true
    }

    private static func code(key: [UInt8], body: String) -> [UInt8] {
        Array(HMACSHA256.authenticationCode(key: key, message: Array("stream visitor \(body)".utf8)).prefix(macLength))
    }
}
