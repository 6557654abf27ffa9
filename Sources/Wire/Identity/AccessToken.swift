import JSON

/// An access token's claims (RFC 7519 §4.1), as an app's backend mints them for its users, LiveKit-style: an
/// HS256 JWT whose `sub` is the app's user id.
///
/// Times are NumericDates: seconds since 1970 UTC. The checks take the time as an argument (no clock here).
public struct AccessToken: Sendable, Equatable {
    /// Clock skew tolerated between the backend that minted a token and this server, in seconds.
    public static let allowedClockSkew: Int64 = 30
    /// The longest user id accepted, in bytes.
    public static let maximumSubjectLength = 256
    /// The longest display name accepted, in Unicode code points.
    public static let maximumNameLength = 64

    /// `sub`: the app's user id.
    public var subject: String
    /// `name`: the display name in chat; without it the user id is shown.
    public var name: String?
    /// `exp`: when the token stops being accepted.
    public var expiresAt: Int64
    /// `nbf`: when the token starts being accepted.
    public var notBefore: Int64?
    /// `iat`: when the token was made.
    public var issuedAt: Int64?

    /// Creates claims.
    public init(subject: String, name: String? = nil, expiresAt: Int64, notBefore: Int64? = nil,
                issuedAt: Int64? = nil) {
        self.subject = subject
        self.name = name
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
    }

    /// The claims as a JWT signed with HS256.
    /// - Parameter secret: the shared secret.
    /// - Returns: the token.
    public func signed(with secret: TokenSecret) -> String {
        var members: [(String, JSONValue)] = [("sub", .string(subject))]
        if let name { members.append(("name", .string(name))) }
        if let issuedAt { members.append(("iat", .integer(issuedAt))) }
        if let notBefore { members.append(("nbf", .integer(notBefore))) }
        members.append(("exp", .integer(expiresAt)))
        return CompactJWS.sign(payload: JSONWriter.bytes(.object(members)), key: secret.bytes)
    }

    /// Checks a token and reads its claims.
    /// - Parameters:
    ///   - token: the compact JWT.
    ///   - secret: the shared secret.
    ///   - now: the current time, in seconds since 1970.
    /// - Returns: the claims.
    /// - Throws: ``TokenError`` with the reason (bad signature, expired, not yet valid, a missing or wrong claim).
    public static func verify(_ token: String, secret: TokenSecret, now: Int64) throws(TokenError) -> AccessToken {
        let payload = try CompactJWS.verify(token, key: secret.bytes)
        let claims: JSONValue
        do {
            claims = try JSONParser.parse(payload, maximumDepth: 8)
        } catch {
            throw TokenError(.malformed, "the token's claims are not JSON (\(error.reason))")
        }
        guard claims.objectValue != nil else { throw TokenError(.malformed, "the token's claims are not an object") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty,
              subject.utf8.count <= maximumSubjectLength else {
            throw TokenError(.invalidClaim, "the token has no user id: 'sub' must be a string of 1 to "
                                + "\(maximumSubjectLength) bytes")
        }
        // As strict as 'name': without a name the user id is shown, and ESC or BEL in it would reach terminals.
        guard !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw TokenError(.invalidClaim, "'sub' must not hold control characters")
        }
        guard !VisitorPass.isVisitor(subject) else {
            throw TokenError(.invalidClaim,
                             "'sub' must not start with \(VisitorPass.idPrefix): those ids are visitors'")
        }
        var name: String?
        if let value = claims["name"], !value.isNull {
            guard let text = value.stringValue, !text.isEmpty, text.unicodeScalars.count <= maximumNameLength,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw TokenError(.invalidClaim, "'name' must be 1 to \(maximumNameLength) characters without "
                                    + "control characters")
            }
            name = text
        }
        guard let expiresAt = try numericDate(claims, "exp") else {
            throw TokenError(.invalidClaim, "the token has no 'exp': tokens must expire")
        }
        let notBefore = try numericDate(claims, "nbf")
        let issuedAt = try numericDate(claims, "iat")
        guard now < expiresAt + allowedClockSkew else {
            throw TokenError(.expired, "the token expired \(now - expiresAt) s ago")
        }
        if let notBefore, now + allowedClockSkew < notBefore {
            throw TokenError(.notYetValid, "the token is not valid for another \(notBefore - now) s")
        }
        return AccessToken(subject: subject, name: name, expiresAt: expiresAt, notBefore: notBefore,
                           issuedAt: issuedAt)
    }

    /// RFC 7519 §2: a NumericDate may have a fraction; whole seconds are enough here.
    private static func numericDate(_ claims: JSONValue, _ name: String) throws(TokenError) -> Int64? {
        guard let value = claims[name], !value.isNull else { return nil }
        guard let number = value.numberValue, abs(number) < 1e15 else {
            throw TokenError(.invalidClaim, "'\(name)' must be a number of seconds since 1970")
        }
        return Int64(number.rounded(.down))
    }
}
