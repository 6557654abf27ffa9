import Digest
import Testing

struct Base64Tests {
    /// RFC 4648 §10's test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func standardVectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    /// §5: the URL alphabet has `-` and `_` for 62 and 63, and encodes without padding.
    @Test func urlAlphabet() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x66]  // sextets 62, 63, 62, 63, then "f" with padding bits
        #expect(Base64.encode(bytes) == "+/+/Zg==")
        #expect(Base64.encode(bytes, alphabet: .url) == "-_-_Zg")
        #expect(Base64.decode("-_-_Zg", alphabet: .url) == bytes)
        #expect(Base64.decode("-_-_Zg==", alphabet: .url) == bytes)
    }

    @Test func everyLengthRoundTrips() {
        for length in 0..<70 {
            let bytes = pseudoRandomBytes(length, seed: UInt32(length))
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
            #expect(Base64.decode(Base64.encode(bytes, alphabet: .url), alphabet: .url) == bytes)
        }
    }

    /// Non-canonical or foreign text is refused: wrong length, characters of the other alphabet, whitespace,
    /// padding inside, too much padding, non-zero leftover bits (§3.5).
    @Test(arguments: ["Zg=", "Zm9v\n", "Zm 9v", "Zg==Zg==", "Z===", "Zh==", "-_-_", "Zm9vY", "====", "Zm9vYmE"])
    func rejectsNonCanonicalText(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func urlAlphabetRefusesStandardCharacters() {
        #expect(Base64.decode("+/+/", alphabet: .url) == nil)
        #expect(Base64.decode("Zg=", alphabet: .url) == nil)
    }
}
