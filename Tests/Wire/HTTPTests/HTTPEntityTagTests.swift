import HTTP
import Testing

struct HTTPEntityTagTests {
    @Test func comparesWeaklyAndStrongly() throws {
        let strong = HTTPEntityTag("abc")
        let weak = try #require(HTTPEntityTag(parsing: " W/\"abc\" "))
        #expect(weak.isWeak && weak.opaque == "abc")
        #expect(strong.weaklyMatches(weak))
        #expect(!strong.stronglyMatches(weak))
        #expect(strong.stronglyMatches(HTTPEntityTag("abc")))
        #expect(strong.description == "\"abc\"")
        #expect(weak.description == "W/\"abc\"")
    }

    /// RFC 9110 §13.1.2: a list of tags or "*"; weak comparison.
    @Test func evaluatesIfNoneMatch() {
        let tag = HTTPEntityTag("v2")
        #expect(HTTPEntityTag.ifNoneMatch("\"v1\", W/\"v2\"", matches: tag))
        #expect(HTTPEntityTag.ifNoneMatch("*", matches: tag))
        #expect(!HTTPEntityTag.ifNoneMatch("\"v1\"", matches: tag))
        #expect(!HTTPEntityTag.ifNoneMatch("v2", matches: tag))
    }
}
