/// Checks that bytes are UTF-8 (RFC 3629 §4) as they arrive, a fragment at a time, so that a text message is
/// refused at its first invalid byte (RFC 6455 §8.1) rather than when it ends.
///
/// Overlong forms, surrogates (U+D800-U+DFFF) and code points above U+10FFFF are invalid.
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current code point.
    private var needed = 0
    /// The range the next continuation byte must fall in (narrower than 80...BF right after some lead bytes).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    private var failed = false

    /// Creates a validator at the start of a text.
    public init() {}

    /// True when everything so far is valid and ends on a code point boundary: a complete text is valid UTF-8.
    public var isComplete: Bool { !failed && needed == 0 }

    /// Starts over for a new text.
    public mutating func reset() {
        self = UTF8Validator()
    }

    /// Checks the next bytes.
    /// - Returns: false as soon as the bytes so far cannot be the start of valid UTF-8 (and from then on).
    public mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// Checks the next bytes, given as raw memory.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !failed else { return false }
        var index = 0
        let count = bytes.count
        while index < count {
            if needed == 0 {
                // Runs of ASCII, the common case, eight bytes at a time.
                while index + 8 <= count,
                      bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                guard index < count else { break }
                let byte = bytes[index]
                index += 1
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: start(1, 0x80, 0xBF)
                case 0xE0: start(2, 0xA0, 0xBF)  // no overlong three-byte forms
                case 0xE1...0xEC, 0xEE...0xEF: start(2, 0x80, 0xBF)
                case 0xED: start(2, 0x80, 0x9F)  // no surrogates
                case 0xF0: start(3, 0x90, 0xBF)  // no overlong four-byte forms
                case 0xF1...0xF3: start(3, 0x80, 0xBF)
                case 0xF4: start(3, 0x80, 0x8F)  // nothing above U+10FFFF
                default:
                    failed = true
                    return false
                }
            } else {
                let byte = bytes[index]
                index += 1
                guard byte >= lower && byte <= upper else {
                    failed = true
                    return false
                }
                needed -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    private mutating func start(_ continuationBytes: Int, _ lower: UInt8, _ upper: UInt8) {
        needed = continuationBytes
        self.lower = lower
        self.upper = upper
    }
}
