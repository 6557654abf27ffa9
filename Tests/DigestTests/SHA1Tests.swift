import Testing
import Digest

struct SHA1Tests {
    /// FIPS 180-2 appendix A vectors and the empty message.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func fipsVectors(message: String, expected: String) {
        #expect(SHA1.hash(Array(message.utf8)) == hexBytes(expected))
    }

    @Test func aMillionAsFedInPieces() {
        var hasher = SHA1()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(piece) }
        #expect(hasher.finalize() == hexBytes("34aa973cd4c4daa4f61eeb2bdbad27316534016f"))
    }
}
