import Identity
import Testing

struct CompactJWSTests {
    /// RFC 7515 Appendix A.1 (and RFC 7519 §3.1): the HS256 example token and its JWK key `k`.
    static let rfcToken = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    /// A.1.1's key, `k` of the JWK decoded from base64url.
    static let rfcKey: [UInt8] = [
        3, 35, 53, 75, 43, 15, 165, 188, 131, 126, 6, 101, 119, 123, 166, 143, 90, 179, 40, 230, 240, 84, 201, 40,
        169, 15, 132, 178, 210, 80, 46, 191, 211, 251, 90, 146, 210, 6, 71, 239, 150, 138, 180, 195, 119, 98, 61, 34,
        61, 46, 33, 114, 5, 46, 79, 8, 192, 205, 154, 245, 103, 208, 128, 163,
    ]
    /// A.1's payload octets: `{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}`.
    static let rfcPayload = Array(
        "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)

    @Test func rfc7515ExampleVerifies() throws {
        #expect(try CompactJWS.verify(Self.rfcToken, key: Self.rfcKey) == Self.rfcPayload)
    }

    @Test func rfc7515ExampleWithAnotherKeyFails() {
        var key = Self.rfcKey
        key[0] ^= 1
        let expected = TokenError(.badSignature, "the token's signature does not match (another secret, or altered)")
        #expect(throws: expected) {
            try CompactJWS.verify(Self.rfcToken, key: key)
        }
    }

    /// Any change to any part of the RFC's token is refused (the signature, or canonical base64url, catches it).
    @Test func everyAlteredCharacterIsRefused() {
        let characters = Array(Self.rfcToken)
        for index in characters.indices where characters[index] != "." {
            var altered = characters
            altered[index] = characters[index] == "A" ? "B" : "A"
            #expect(throws: TokenError.self) { try CompactJWS.verify(String(altered), key: Self.rfcKey) }
        }
    }

    @Test func signThenVerify() throws {
        let token = CompactJWS.sign(payload: Array("{\"sub\":\"ann\"}".utf8), key: Self.rfcKey)
        #expect(token.hasPrefix("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."))  // {"alg":"HS256","typ":"JWT"}
        #expect(try CompactJWS.verify(token, key: Self.rfcKey) == Array("{\"sub\":\"ann\"}".utf8))
    }

    /// RFC 7519 §6.1's unsecured JWT (`alg: none`) and other algorithms are refused, whatever the signature.
    @Test func onlyHS256IsAccepted() {
        let unsecured = "eyJhbGciOiJub25lIn0"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
        #expect { try CompactJWS.verify(unsecured, key: Self.rfcKey) } throws: { error in
            (error as? TokenError)?.code == .unsupportedAlgorithm
        }
        // {"alg":"HS512"} with the RFC payload and signature.
        let parts = Self.rfcToken.split(separator: ".")
        let hs512 = "eyJhbGciOiJIUzUxMiJ9.\(parts[1]).\(parts[2])"
        #expect { try CompactJWS.verify(hs512, key: Self.rfcKey) } throws: { error in
            (error as? TokenError)?.code == .unsupportedAlgorithm
        }
        // {"alg":"HS256","crit":["exp"]}
        let critical = "eyJhbGciOiJIUzI1NiIsImNyaXQiOlsiZXhwIl19.\(parts[1]).\(parts[2])"
        #expect { try CompactJWS.verify(critical, key: Self.rfcKey) } throws: { error in
            (error as? TokenError)?.code == .unsupportedAlgorithm
        }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!!.e30.", "e30.e30.A", "e30=.e30.", "bm90IGpzb24.e30.",
                      String(repeating: "A", count: 9000)])
    func malformedTokens(token: String) {
        #expect { try CompactJWS.verify(token, key: Self.rfcKey) } throws: { error in
            (error as? TokenError)?.code == .malformed
        }
    }
}
