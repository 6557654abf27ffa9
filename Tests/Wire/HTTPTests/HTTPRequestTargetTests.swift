import HTTP
import Testing

struct HTTPRequestTargetTests {
    @Test func splitsPathAndQuery() throws {
        let target = try #require(HTTPRequestTarget("/v1/streams/a%20b%2Fc?access_token=t%2B1&x=&flag&q=a+b"))
        #expect(target.pathSegments == ["v1", "streams", "a b/c"])
        #expect(target.rawPath == "/v1/streams/a%20b%2Fc")
        #expect(target.rawQuery == "access_token=t%2B1&x=&flag&q=a+b")
        #expect(target.queryValue("access_token") == "t+1")
        #expect(target.queryValue("x") == "")
        #expect(target.queryValue("flag") == "")
        #expect(target.queryValue("q") == "a b")
        #expect(target.queryValue("missing") == nil)
    }

    @Test func handlesRootEmptySegmentsAndAbsoluteForm() throws {
        #expect(try #require(HTTPRequestTarget("/")).pathSegments.isEmpty)
        #expect(try #require(HTTPRequestTarget("//a//b/")).pathSegments == ["a", "b"])
        let absolute = try #require(HTTPRequestTarget("http://example.com:8080/x/y?z=1"))
        #expect(absolute.pathSegments == ["x", "y"])
        #expect(absolute.queryValue("z") == "1")
        #expect(try #require(HTTPRequestTarget("https://example.com")).path == "/")
    }

    @Test func refusesBadEscapes() {
        #expect(HTTPRequestTarget("/a%zz") == nil)
        #expect(HTTPRequestTarget("/a?x=%") == nil)
    }

    @Test func decodesUTF8SegmentsAndStopsAtTheFragment() throws {
        let target = try #require(HTTPRequestTarget("/caf%C3%A9/th\u{e9}/x?q=1#part"))
        #expect(target.pathSegments == ["caf\u{e9}", "th\u{e9}", "x"])
        #expect(target.rawPath == "/caf%C3%A9/th\u{e9}/x")
        #expect(target.rawQuery == "q=1")
        #expect(try #require(HTTPRequestTarget("HTTP://h/a#b?c")).rawQuery == nil)
        #expect(try #require(HTTPRequestTarget("HTTP://h/a#b?c")).rawPath == "/a")
        // An escape that decodes to bytes that are not UTF-8.
        #expect(HTTPRequestTarget("/a%FF") == nil)
        #expect(HTTPRequestTarget("/a?b=%C3") == nil)
    }
}
