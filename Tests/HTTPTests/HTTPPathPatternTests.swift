import HTTP
import Testing

struct HTTPPathPatternTests {
    @Test func matchesLiteralsAndParameters() {
        let pattern = HTTPPathPattern("/v1/streams/{name}")
        #expect(pattern.match(["v1", "streams", "show"]) == ["name": "show"])
        #expect(pattern.match(["v1", "streams"]) == nil)
        #expect(pattern.match(["v1", "streams", "show", "x"]) == nil)
        #expect(pattern.match(["v2", "streams", "show"]) == nil)
        #expect(HTTPPathPattern("/").match([]) == [:])
    }

    @Test func valuesComeInTheOrderOfTheNames() {
        let pattern = HTTPPathPattern("/hls/{app}/{tag}/{file}")
        #expect(pattern.parameterNames == ["app", "tag", "file"])
        #expect(pattern.values(["hls", "live", "t1", "index.m3u8"]) == ["live", "t1", "index.m3u8"])
        #expect(pattern.values(["hls", "live", "t1"]) == nil)
        #expect(HTTPPathPattern("/static/{path...}").values(["static", "a", "b"]) == ["a/b"])
        #expect(HTTPPathPattern("/files/{...}").parameterNames.isEmpty)
    }

    @Test func restParameterTakesTheRest() {
        let pattern = HTTPPathPattern("/static/{path...}")
        #expect(pattern.match(["static", "a", "b.css"]) == ["path": "a/b.css"])
        #expect(pattern.match(["static"]) == ["path": ""])
        #expect(pattern.match(["other"]) == nil)
        #expect(HTTPPathPattern("/files/{...}").match(["files", "a", "b"]) == [:])
    }
}
