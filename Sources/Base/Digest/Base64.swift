/// Base64 (RFC 4648 §4) and base64url (§5): WebSocket keys and accept values, and tokens.
public enum Base64 {
    /// Which of RFC 4648's two alphabets.
    public enum Alphabet: Sendable {
        /// §4: `+` and `/`, padded with `=`.
        case standard
        /// §5: `-` and `_`, for URLs and file names; unpadded when encoding, padding optional when decoding.
        case url
    }

    private static let standardTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes.
    /// - Parameters:
    ///   - bytes: what to encode.
    ///   - alphabet: `.standard` (padded) or `.url` (unpadded).
    /// - Returns: the text.
    public static func encode<C: Collection>(_ bytes: C, alphabet: Alphabet = .standard) -> String
    where C.Element == UInt8 {
        let table = alphabet == .standard ? standardTable : urlTable
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(table[Int(group >> 18 & 0x3F)])
            output.append(table[Int(group >> 12 & 0x3F)])
            if second != nil {
                output.append(table[Int(group >> 6 & 0x3F)])
            } else if alphabet == .standard {
                output.append(UInt8(ascii: "="))
            }
            if third != nil {
                output.append(table[Int(group & 0x3F)])
            } else if alphabet == .standard {
                output.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes text strictly: no whitespace, no characters outside the alphabet, padding only at the end, and
    /// unused trailing bits zero (RFC 4648 §3.5), so each byte string has exactly one accepted spelling.
    /// - Parameters:
    ///   - text: the encoded text; with `.standard` its length must be a multiple of 4 (padded).
    ///   - alphabet: which alphabet the text uses.
    /// - Returns: the bytes, or nil when the text is not canonical base64 of that alphabet.
    public static func decode(_ text: String, alphabet: Alphabet = .standard) -> [UInt8]? {
        var characters = Array(text.utf8)
        if alphabet == .standard && characters.count % 4 != 0 { return nil }
        var padding = 0
        while padding < 2, characters.last == UInt8(ascii: "=") {
            characters.removeLast()
            padding += 1
        }
        if alphabet == .url && padding > 0 && (characters.count + padding) % 4 != 0 { return nil }
        guard characters.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character, alphabet: alphabet) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Bits left over from the last character must be zero.
        guard accumulator == 0 else { return nil }
        return output
    }

    private static func sextet(_ character: UInt8, alphabet: Alphabet) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+") where alphabet == .standard: 62
        case UInt8(ascii: "/") where alphabet == .standard: 63
        case UInt8(ascii: "-") where alphabet == .url: 62
        case UInt8(ascii: "_") where alphabet == .url: 63
        default: nil
        }
    }
}
