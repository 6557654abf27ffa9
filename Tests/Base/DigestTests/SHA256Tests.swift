import Testing
import Digest

struct SHA256Tests {
    /// FIPS 180-4 examples ("", "abc", the 448-bit two-block message) and lengths around the padding edges.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func digest(message: String, expected: String) {
        #expect(SHA256.hash(Array(message.utf8)) == hexBytes(expected))
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let message = pseudoRandomBytes(300, seed: 7)
        var hasher = SHA256()
        hasher.update(message[0..<1])
        hasher.update(message[1..<130])
        hasher.update(message[130...])
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    /// Contiguous input is hashed where it lies and other sequences byte by byte: any mix, split anywhere around
    /// the block edges, gives the one-shot digest.
    @Test func contiguousAndByteByByteUpdatesMix() {
        let message = pseudoRandomBytes(200, seed: 11)
        let expected = SHA256.hash(message)
        #expect(SHA256.hash(message.lazy.map { $0 }) == expected)
        for first in [0, 1, 63, 64, 65, 100] {
            for second in [first, first + 1, first + 63, first + 64, 199] where second <= message.count {
                var hasher = SHA256()
                hasher.update(message[..<first])
                hasher.update(message[first..<second].lazy.map { $0 })
                hasher.update(message[second...])
                #expect(hasher.finalize() == expected, "split at \(first) and \(second)")
            }
        }
    }
}

/// The bytes of a hex string ("0a1b" → [0x0a, 0x1b]).
func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// Deterministic pseudo-random bytes (a 32-bit LCG), so vectors are reproducible.
func pseudoRandomBytes(_ count: Int, seed: UInt32) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}
