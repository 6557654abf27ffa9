import Testing
import WebSocket

struct UTF8ValidatorTests {
    /// Valid text: ASCII, two-, three- and four-byte forms, the boundaries U+007F, U+0080, U+07FF, U+0800,
    /// U+D7FF, U+E000, U+FFFF, U+10000, U+10FFFF.
    static let valid: [[UInt8]] = [
        Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5],  // "κόσμε"
        [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
        [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [],
    ]

    /// Invalid: lone continuation, overlong forms, surrogates, above U+10FFFF, bytes never used (C0, C1, F5-FF).
    static let invalid: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
        [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
        [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xC2, 0x41], [0xE1, 0x80, 0x41],
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64],
    ]

    @Test(arguments: valid)
    func acceptsValidTextSplitAnywhere(bytes: [UInt8]) {
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let front = validator.validate(Array(bytes[..<split]))
            let back = validator.validate(Array(bytes[split...]))
            #expect(front && back && validator.isComplete)
        }
    }

    @Test(arguments: invalid)
    func refusesInvalidTextAtItsFirstBadByte(bytes: [UInt8]) {
        var validator = UTF8Validator()
        var failedAt: Int?
        for (index, byte) in bytes.enumerated() where !validator.validate([byte]) {
            failedAt = index
            break
        }
        #expect(failedAt != nil)
        #expect(!validator.isComplete)
        var whole = UTF8Validator()
        let valid = whole.validate(bytes)
        #expect(!valid)
    }

    @Test func incompleteSequencesAreNotComplete() {
        var validator = UTF8Validator()
        let prefixValid = validator.validate([0xF0, 0x90, 0x80])
        #expect(prefixValid && !validator.isComplete)
        validator.reset()
        #expect(validator.isComplete)
    }

    @Test func agreesWithTheStandardLibraryOnLongMixedText() {
        let text = String(repeating: "plain ASCII run, then ünïcödé and 🎉 emoji; ", count: 50)
        var validator = UTF8Validator()
        let valid = validator.validate(Array(text.utf8))
        #expect(valid && validator.isComplete)
    }
}
