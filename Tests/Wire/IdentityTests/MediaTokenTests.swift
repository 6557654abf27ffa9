import Identity
import Testing

/// The media token that will open a show's LL-HLS routes to the sessions that joined it (issue 34 A).
struct MediaTokenTests {
    static let key = Array("a key derived for media tokens..".utf8)
    static let now: Int64 = 1_764_500_000

    @Test(arguments: ["ann", "zoë", nil] as [String?])
    func signThenVerify(user: String?) throws {
        let token = MediaToken(stream: "club:tv", user: user, issuedAt: Self.now, expiresAt: Self.now + 600)
        let text = token.signed(with: Self.key)
        #expect(text.hasPrefix(MediaToken.prefix))
        // A path segment as it is: no escaping needed.
        #expect(text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }, "\(text)")
        #expect(try MediaToken.verify(text, stream: "club:tv", key: Self.key, now: Self.now + 599) == token)
    }

    @Test func anotherShowAnotherKeyOrAnAlteredTokenIsRefused() throws {
        let text = MediaToken(stream: "club:tv", user: "ann", issuedAt: Self.now, expiresAt: Self.now + 600)
            .signed(with: Self.key)
        #expect { try MediaToken.verify(text, stream: "club:radio", key: Self.key, now: Self.now) } throws: { error in
            (error as? TokenError)?.code == .badSignature
        }
        let otherKey = Array("another key for the media tokens".utf8)
        #expect { try MediaToken.verify(text, stream: "club:tv", key: otherKey, now: Self.now) } throws: { error in
            (error as? TokenError)?.code == .badSignature
        }
        // A later expiry or another user, with the old MAC.
        let parts = text.split(separator: ".").map(String.init)
        let longer = [parts[0], parts[1], String(Self.now + 86_400), parts[3], parts[4]].joined(separator: ".")
        let bob = [parts[0], parts[1], parts[2], "Ym9i", parts[4]].joined(separator: ".")
        for altered in [longer, bob] {
            #expect { try MediaToken.verify(altered, stream: "club:tv", key: Self.key, now: Self.now) } throws: {
                error in (error as? TokenError)?.code == .badSignature
            }
        }
    }

    @Test func anExpiredOrMalformedTokenIsRefusedWithoutSayingIt() {
        let text = MediaToken(stream: "club:tv", user: "ann", issuedAt: Self.now, expiresAt: Self.now + 600)
            .signed(with: Self.key)
        #expect { try MediaToken.verify(text, stream: "club:tv", key: Self.key, now: Self.now + 600) } throws: {
            error in (error as? TokenError)?.code == .expired && !"\(error)".contains(text)
        }
        for malformed in ["", "m1.", "m1....", "x1.1.2.YW5u.AAAA", text + "A", String(repeating: "m1.", count: 200),
                          "m1.1.2.YW5u.!!!!"] {
            #expect { try MediaToken.verify(malformed, stream: "club:tv", key: Self.key, now: Self.now) } throws: {
                error in
                let code = (error as? TokenError)?.code
                return code == .malformed || code == .badSignature
            }
        }
    }
}
