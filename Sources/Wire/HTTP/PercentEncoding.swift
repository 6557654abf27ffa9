import ByteIO

/// Percent-encoding (RFC 3986 §2.1) and the form encoding of query strings (`+` for space).
public enum PercentEncoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusIsSpace`) into UTF-8 text.
    /// - Returns: the text, or nil for a truncated or non-hex escape or bytes that are not UTF-8.
    public static func decode<S: StringProtocol>(_ text: S, plusIsSpace: Bool = false) -> String? {
        var text = String(text)
        return text.withUTF8 { decode($0, plusIsSpace: plusIsSpace) }
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusIsSpace`) in UTF-8 bytes into text.
    /// - Returns: the text, or nil for a truncated or non-hex escape or bytes that are not UTF-8.
    public static func decode(_ utf8: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool = false) -> String? {
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return UTF8Text.validated(utf8)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = HTTPSyntax.hexValue(utf8[index + 1]),
                      let low = HTTPSyntax.hexValue(utf8[index + 2]) else { return nil }
                bytes.append(UInt8(high << 4 | low))
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return UTF8Text.validated(bytes)
    }

    /// Encodes every byte outside RFC 3986's unreserved set (ALPHA, DIGIT, `-._~`) and `allowed`.
    /// - Parameters:
    ///   - text: what to encode.
    ///   - allowed: extra ASCII characters to leave as they are (e.g. "/" for a path).
    public static func encode(_ text: String, allowing allowed: String = "") -> String {
        let extra = Set(allowed.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) || extra.contains(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
