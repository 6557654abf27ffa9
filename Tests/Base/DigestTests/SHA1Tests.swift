import Digest
import Testing

struct SHA1Tests {
    /// RFC 3174 §7.3's four test cases (TEST1, TEST2, TEST3 = "a" a million times, TEST4 = "0123456701234567"
    /// ten times over 64 bytes), the empty message, and lengths around the padding edges (55, 56, 64 bytes).
    @Test(arguments: [
        ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("a", 1_000_000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ("0123456701234567012345670123456701234567012345670123456701234567", 10,
         "dea356a2cddd90c7a7ecedc5ebb563934f460452"),
        ("", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        (String(repeating: "a", count: 55), 1, "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (String(repeating: "a", count: 56), 1, "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (String(repeating: "a", count: 64), 1, "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
    ])
    func digest(message: String, repeats: Int, expected: String) {
        var hasher = SHA1()
        for _ in 0..<repeats { hasher.update(Array(message.utf8)) }
        #expect(hasher.finalize() == hexBytes(expected))
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let message = pseudoRandomBytes(300, seed: 11)
        var hasher = SHA1()
        hasher.update(message[0..<1])
        hasher.update(message[1..<130])
        hasher.update(message[130...])
        #expect(hasher.finalize() == SHA1.hash(message))
    }

    /// RFC 6455 §1.3's example: the key "dGhlIHNhbXBsZSBub25jZQ==" with the GUID hashes to the accept value
    /// "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
    @Test func webSocketAcceptExample() {
        let digest = SHA1.hash(Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8))
        #expect(Base64.encode(digest) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
