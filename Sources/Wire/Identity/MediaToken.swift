import Digest

/// A short-lived grant to fetch one show's media (LL-HLS playlists, parts, init segments; WHEP later), for players
/// that cannot send an `Authorization` header: the server gives it to a session that joined, and a request carries
/// it in its path.
///
/// Its text is `m1.` then base64url fields separated by dots: the issue time and expiry (seconds since 1970, in
/// decimal), the user id (empty for a visitor), and an HMAC-SHA256 over all of them and the stream's name, cut to
/// 128 bits. Only characters of a URL path segment (`A-Z a-z 0-9 - _ .`), so it needs no escaping. The stream is
/// not in the text (the path names it) but in the MAC: a token for one show is refused for another.
public struct MediaToken: Sendable, Hashable {
    /// The show whose media it opens.
    public var stream: String
    /// The user it was given to; nil for a visitor.
    public var user: String?
    /// When it was given, in seconds since 1970: a ban revokes the tokens given before it.
    public var issuedAt: Int64
    /// When it stops working, in seconds since 1970.
    public var expiresAt: Int64

    /// What every token's text starts with (its version).
    public static let prefix = "m1."
    /// The longest text accepted: a user id of 256 bytes in base64url and the rest, with room.
    public static let maximumLength = 512

    /// Creates a token.
    public init(stream: String, user: String?, issuedAt: Int64, expiresAt: Int64) {
        self.stream = stream
        self.user = user
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// The token's text, signed with `key` (a key derived from the server's secret for this use only).
    public func signed(with key: [UInt8]) -> String {
        let body = Self.body(issuedAt: issuedAt, expiresAt: expiresAt, user: user)
        return Self.prefix + body + "." + Base64.encode(Self.code(key: key, stream: stream, body: body), alphabet: .url)
    }

    /// Checks a token's text for a stream.
    /// - Parameters:
    ///   - text: the token as it came (a path segment).
    ///   - stream: the show the request is for.
    ///   - key: the key it must be signed with.
    ///   - now: the time, in seconds since 1970.
    /// - Returns: the token's fields.
    /// - Throws: ``TokenError`` (`.malformed`, `.badSignature`, `.expired`); its reason never holds the token.
    public static func verify(_ text: String, stream: String, key: [UInt8], now: Int64) throws(TokenError)
        -> MediaToken {
        guard text.utf8.count <= maximumLength, text.hasPrefix(prefix) else {
            throw TokenError(.malformed, "not a media token")
        }
        let rest = text.utf8.dropFirst(prefix.utf8.count)
        guard let lastDot = rest.lastIndex(of: UInt8(ascii: ".")) else {
            throw TokenError(.malformed, "not a media token")
        }
        let body = String(Substring(rest[..<lastDot]))
        guard let mac = Base64.decode(String(Substring(rest[rest.index(after: lastDot)...])), alphabet: .url),
              mac.count == macLength else {
            throw TokenError(.malformed, "not a media token")
        }
        guard ConstantTime.equal(mac, code(key: key, stream: stream, body: body)) else {
            throw TokenError(.badSignature, "the media token is not this server's, or not for \(stream.prefix(128))")
        }
        // Signed by us: the fields are as we wrote them.
        let fields = body.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 3, let issuedAt = Int64(fields[0]), let expiresAt = Int64(fields[1]),
              let userBytes = Base64.decode(String(fields[2]), alphabet: .url) else {
            throw TokenError(.malformed, "not a media token")
        }
        guard now < expiresAt else {
            throw TokenError(.expired, "the media token expired \(now - expiresAt) s ago: join again for a new one")
        }
        let user = userBytes.isEmpty ? nil : String(decoding: userBytes, as: UTF8.self)
        return MediaToken(stream: stream, user: user, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// The MAC's length in bytes (128 bits).
    static let macLength = 16

    private static func body(issuedAt: Int64, expiresAt: Int64, user: String?) -> String {
        "\(issuedAt).\(expiresAt)." + Base64.encode(Array((user ?? "").utf8), alphabet: .url)
    }

    private static func code(key: [UInt8], stream: String, body: String) -> [UInt8] {
        // The stream's bytes are counted first, so no stream and body can be read as another split of the same bytes.
        let message = Array("stream media token\n\(stream.utf8.count)\n".utf8) + Array(stream.utf8) + Array(body.utf8)
        return Array(HMACSHA256.authenticationCode(key: key, message: message).prefix(macLength))
    }
}
