import Testing
@testable import RTMP

/// The random part of C1 and S1, made in one place for every driver.
struct HandshakeRandomTests {
    /// A fixed sequence, so the bytes' order can be checked.
    struct Counting: RandomNumberGenerator {
        var word: UInt64 = 0x0807_0605_0403_0201
        mutating func next() -> UInt64 {
            defer { word &+= 0x0808_0808_0808_0808 }
            return word
        }
    }

    @Test func fills1528BytesLowByteFirstFromTheGenerator() {
        var generator = Counting()
        let bytes = HandshakeRandom.bytes(using: &generator)
        #expect(bytes.count == ClientHandshake.randomSize && bytes.count == 1528)
        // Each word's bytes low first, word after word (1528 = 191 words, none left over).
        #expect(Array(bytes.prefix(16)) == Array(1...16))
    }

    @Test func theSystemGeneratorGivesFreshBytesEachTime() {
        let first = HandshakeRandom.bytes()
        let second = HandshakeRandom.bytes()
        #expect(first.count == 1528 && first != second)
        // Usable as is by both handshakes.
        _ = ClientHandshake(time: 0, random: first)
        _ = ServerHandshake(time: 0, random: second)
    }
}
