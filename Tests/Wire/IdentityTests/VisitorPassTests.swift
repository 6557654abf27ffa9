import Identity
import Testing

/// Issue 34 item 5: a visitor's id is stable (its token brings it back), unguessable and unforgeable.
struct VisitorPassTests {
    static let key = Array("a key derived for visitor ids...".utf8)
    static let random: [UInt8] = Array(0..<16)

    @Test func aMintedPassVerifiesToItself() throws {
        let pass = VisitorPass.minted(random: Self.random, key: Self.key)
        // base64url of 00 01 … 0f, unpadded: 22 characters.
        #expect(pass.id == "visitor:AAECAwQFBgcICQoLDA0ODw")
        #expect(pass.token.hasPrefix("v1.AAECAwQFBgcICQoLDA0ODw.") && pass.token.count == 3 + 22 + 1 + 22)
        #expect(try VisitorPass.verify(pass.token, key: Self.key) == pass)
        #expect(pass.random == Self.random)
        #expect(VisitorPass.isVisitor(pass.id) && VisitorPass.isVisitor(nil) && !VisitorPass.isVisitor("ann"))
    }

    @Test func anotherKeyAnotherIdOrGarbageIsRefused() {
        let pass = VisitorPass.minted(random: Self.random, key: Self.key)
        let other = VisitorPass.minted(random: Array(repeating: 7, count: 16), key: Self.key)
        let mac = pass.token.split(separator: ".")[2]
        let forged = "v1." + other.id.dropFirst("visitor:".count) + "." + mac
        let cases: [(String, TokenError.Code)] = [
            (forged, .badSignature),
            (VisitorPass.minted(random: Self.random, key: Array("another key for the visitor ids".utf8)).token,
             .badSignature),
            ("", .malformed), ("v1.", .malformed), (pass.token + "A", .malformed),
            ("v2." + pass.token.dropFirst(3), .malformed),
            (String(pass.token.prefix(25)) + "!" + pass.token.dropFirst(26), .malformed),
        ]
        for (token, code) in cases {
            #expect { try VisitorPass.verify(token, key: Self.key) } throws: { error in
                guard let error = error as? TokenError else { return false }
                return error.code == code && (token.isEmpty || !error.reason.contains(token))
            }
        }
    }

    @Test func theDerivedVisitorOfASourceIsAlwaysTheSame() throws {
        let one = VisitorPass.derived(from: "address 203.0.113.9", key: Self.key)
        #expect(one == VisitorPass.derived(from: "address 203.0.113.9", key: Self.key))
        #expect(one != VisitorPass.derived(from: "address 203.0.113.10", key: Self.key))
        #expect(try VisitorPass.verify(one.token, key: Self.key) == one)
    }

    /// The prefix is the visitors': an app's token cannot make its user pass for one (nor act on one's behalf).
    @Test func anAccessTokenForAVisitorIdIsRefused() {
        let secret = try! TokenSecret(Array("a test secret of at least 32 bytes!!".utf8))
        let token = AccessToken(subject: "visitor:AAECAwQFBgcICQoLDA0ODw", expiresAt: 4_000_000_000)
            .signed(with: secret)
        #expect { try AccessToken.verify(token, secret: secret, now: 1_764_500_000) } throws: { error in
            (error as? TokenError)?.code == .invalidClaim
        }
    }
}
