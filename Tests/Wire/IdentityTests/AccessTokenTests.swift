import Identity
import JSON
import Testing

struct AccessTokenTests {
    static let secret = try! TokenSecret(Array("0123456789abcdef0123456789abcdef".utf8))
    static let now: Int64 = 1_764_500_000

    @Test func mintThenVerify() throws {
        let claims = AccessToken(subject: "ann", name: "Ann", expiresAt: Self.now + 3600, notBefore: Self.now - 5,
                                 issuedAt: Self.now - 5)
        let token = claims.signed(with: Self.secret)
        #expect(try AccessToken.verify(token, secret: Self.secret, now: Self.now) == claims)
    }

    @Test func claimsAreTheRegisteredNames() throws {
        let token = AccessToken(subject: "ann", name: "Ann", expiresAt: 2_000_000_000, issuedAt: 1_900_000_000)
            .signed(with: Self.secret)
        let payload = try CompactJWS.verify(token, key: Self.secret.bytes)
        #expect(String(decoding: payload, as: UTF8.self)
                == #"{"sub":"ann","name":"Ann","iat":1900000000,"exp":2000000000}"#)
    }

    @Test func expiredAndNotYetValid() {
        let expired = AccessToken(subject: "ann", expiresAt: Self.now - 60).signed(with: Self.secret)
        #expect { try AccessToken.verify(expired, secret: Self.secret, now: Self.now) } throws: { error in
            (error as? TokenError)?.code == .expired && "\(error)".contains("expired 60 s ago")
        }
        // Within the allowed skew an expired token still passes.
        let justExpired = AccessToken(subject: "ann", expiresAt: Self.now - 10).signed(with: Self.secret)
        #expect(throws: Never.self) { try AccessToken.verify(justExpired, secret: Self.secret, now: Self.now) }
        let early = AccessToken(subject: "ann", expiresAt: Self.now + 7200, notBefore: Self.now + 3600)
            .signed(with: Self.secret)
        #expect { try AccessToken.verify(early, secret: Self.secret, now: Self.now) } throws: { error in
            (error as? TokenError)?.code == .notYetValid
        }
    }

    @Test func anotherSecretIsRefused() throws {
        let other = try TokenSecret(Array("another secret of thirty-two bytes!".utf8))
        let token = AccessToken(subject: "ann", expiresAt: Self.now + 60).signed(with: other)
        #expect { try AccessToken.verify(token, secret: Self.secret, now: Self.now) } throws: { error in
            (error as? TokenError)?.code == .badSignature
        }
    }

    /// Tokens signed correctly but with claims that are missing or of the wrong type.
    @Test(arguments: [
        (#"{"exp":2000000000}"#, "no user id"),
        (#"{"sub":"","exp":2000000000}"#, "no user id"),
        (#"{"sub":42,"exp":2000000000}"#, "no user id"),
        (#"{"sub":"ann"}"#, "no 'exp'"),
        (#"{"sub":"ann","exp":"soon"}"#, "'exp' must be a number"),
        (#"{"sub":"ann","exp":2000000000,"nbf":true}"#, "'nbf' must be a number"),
        (#"{"sub":"ann","exp":2000000000,"name":7}"#, "'name' must be"),
        (#"{"sub":"ann","exp":2000000000,"name":"a\u0007b"}"#, "'name' must be"),
        // Issue 34 item 2: the same rule for the user id (ESC and BEL would retitle a viewer's terminal).
        (#"{"sub":"x\u001b]0;pwned\u0007\u001b[2J","exp":2000000000}"#, "'sub' must not hold control characters"),
        (#"{"sub":"ann\n","exp":2000000000}"#, "'sub' must not hold control characters"),
        (#"[1,2]"#, "not an object"),
        (#"{"sub":"ann""#, "not JSON"),
    ])
    func badClaims(payload: String, reason: String) {
        let token = CompactJWS.sign(payload: Array(payload.utf8), key: Self.secret.bytes)
        #expect { try AccessToken.verify(token, secret: Self.secret, now: Self.now) } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func fractionalDatesAreAccepted() throws {
        let token = CompactJWS.sign(payload: Array(#"{"sub":"ann","exp":2000000000.75}"#.utf8), key: Self.secret.bytes)
        #expect(try AccessToken.verify(token, secret: Self.secret, now: Self.now).expiresAt == 2_000_000_000)
    }

    @Test func secretsAreAtLeast32BytesAndNeverPrinted() throws {
        #expect(throws: TokenError.self) { try TokenSecret(Array("short".utf8)) }
        let fromFile = try TokenSecret(fileContents: Array("0123456789abcdef0123456789abcdef\n".utf8))
        #expect(fromFile.bytes == Self.secret.bytes)
        #expect(throws: TokenError.self) {
            try TokenSecret(fileContents: Array("0123456789abcdef0123456789abcde\n\n".utf8))
        }
        #expect("\(fromFile)" == "TokenSecret(32 bytes)")
        #expect(fromFile.derivedKey(for: "a") != fromFile.derivedKey(for: "b"))
        #expect(fromFile.derivedKey(for: "a").count == 32)
    }
}
