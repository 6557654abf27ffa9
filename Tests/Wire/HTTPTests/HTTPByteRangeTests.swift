import HTTP
import Testing

struct HTTPByteRangeTests {
    /// RFC 9110 §14.1.2's examples over a 10000-byte representation.
    @Test(arguments: [
        ("bytes=0-499", 0..<500), ("bytes=500-999", 500..<1000), ("bytes=-500", 9500..<10000),
        ("bytes=9500-", 9500..<10000), ("bytes=0-0", 0..<1), ("bytes=-1", 9999..<10000),
        ("bytes=9000-20000", 9000..<10000), ("bytes=-20000", 0..<10000),
    ])
    func resolvesExamples(value: String, range: Range<Int>) throws {
        #expect(try #require(HTTPByteRange(value)).resolve(length: 10000) == .partial(range))
    }

    @Test func startPastTheEndIsUnsatisfiable() throws {
        #expect(try #require(HTTPByteRange("bytes=10000-")).resolve(length: 10000) == .unsatisfiable)
        #expect(try #require(HTTPByteRange("bytes=-5")).resolve(length: 0) == .unsatisfiable)
    }

    /// Several ranges and anything malformed are ignored: the whole representation is sent.
    @Test(arguments: ["bytes=0-1,5-6", "bytes=5-1", "bytes=-0", "bytes=a-b", "items=0-1", "bytes=", "bytes=1"])
    func ignoresWhatItDoesNotSupport(value: String) {
        #expect(HTTPByteRange(value) == nil)
    }
}
