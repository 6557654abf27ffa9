import Testing
@testable import MP4

@Suite struct ExpGolombReaderTests {
    /// ITU-T H.264 §9.1, Table 9-2: bit strings and the codeNum they stand for.
    @Test func readsTheCodeNumbersOfTable9_2() {
        // 1 | 010 | 011 | 00100 | 00101 | 00110 | 00111 | 0001000 | 000010001 (= 16), then padding 1s.
        // Bits: 1010 0110 0100 0010 1001 1000 1110 0010 0000 0010 0011 1111
        var reader = ExpGolombReader(escaped: [0xA6, 0x42, 0x98, 0xE2, 0x02, 0x3F])
        let values = (0..<9).map { _ in reader.readUnsigned() }
        #expect(values == [0, 1, 2, 3, 4, 5, 6, 7, 16])
    }

    /// §9.1.1, Table 9-3: codeNum k is (−1)^(k+1) · ⌈k ÷ 2⌉.
    @Test func mapsSignedCodes() {
        // codeNum 0, 1, 2, 3, 4: 1 | 010 | 011 | 00100 | 00101 → 1010 0110 0100 0010 1(111)
        var reader = ExpGolombReader(escaped: [0xA6, 0x42, 0xFF])
        #expect((0..<5).map { _ in reader.readSigned() } == [0, 1, -1, 2, -2])
    }

    @Test func removesEmulationPreventionBytes() {
        // 00 00 03 01 carries 00 00 01: 23 zero bits then a 1 is not a valid code here; read the raw bits instead.
        var reader = ExpGolombReader(escaped: [0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03, 0x00])
        #expect(reader.remainingBits == 6 * 8)
        #expect(reader.read(24) == 0x000001)
        #expect(reader.read(24) == 0x000000)
        #expect(reader.read(1) == nil)
    }

    @Test func aCodeTooLongOrCutShortIsNil() {
        var zeros = ExpGolombReader(escaped: [UInt8](repeating: 0, count: 8) + [0xFF])
        #expect(zeros.readUnsigned() == nil)
        var cut = ExpGolombReader(escaped: [0x00, 0x01])  // 15 zeros, a 1, then no suffix bits
        #expect(cut.readUnsigned() == nil)
        var empty = ExpGolombReader(escaped: [])
        #expect(empty.readUnsigned() == nil)
        #expect(empty.read(1) == nil)
    }
}
