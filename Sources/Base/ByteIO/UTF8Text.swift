/// Text from bytes that must be UTF-8 (a request's path, a JSON string, a close reason).
public enum UTF8Text {
    /// The text of `utf8`; nil if the bytes are not UTF-8. ASCII (nearly every path, query and protocol string) is
    /// taken as it is: `String(validating:as:)` is generic over the encoding and not specialized for its callers, so
    /// every call looks up type metadata at run time (2 % of an LL-HLS server's user time, two calls per request).
    public static func validated(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
        return String(validating: utf8, as: UTF8.self)
    }

    /// The text of `bytes`; nil if they are not UTF-8.
    public static func validated(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { validated($0) }
    }
}
