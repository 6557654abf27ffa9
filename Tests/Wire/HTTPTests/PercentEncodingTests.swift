import HTTP
import Testing

struct PercentEncodingTests {
    /// RFC 3986 §2.1: "%" HEXDIG HEXDIG, either case.
    @Test(arguments: [("a%20b", "a b"), ("%E2%82%AC", "€"), ("%e2%82%ac", "€"), ("plain", "plain"), ("a+b", "a+b")])
    func decodes(encoded: String, decoded: String) {
        #expect(PercentEncoding.decode(encoded) == decoded)
    }

    @Test func plusIsASpaceInQueries() {
        #expect(PercentEncoding.decode("a+b%2B", plusIsSpace: true) == "a b+")
    }

    @Test(arguments: ["%", "%2", "%zz", "a%G0", "%FF", "%C3"])
    func refusesBadEscapesAndNonUTF8(text: String) {
        #expect(PercentEncoding.decode(text) == nil)
    }

    @Test func encodesOutsideTheUnreservedSet() {
        #expect(PercentEncoding.encode("a b/€~") == "a%20b%2F%E2%82%AC~")
        #expect(PercentEncoding.encode("a b/c", allowing: "/") == "a%20b/c")
        #expect(PercentEncoding.decode(PercentEncoding.encode("ünï cödé/?&=")) == "ünï cödé/?&=")
    }
}
