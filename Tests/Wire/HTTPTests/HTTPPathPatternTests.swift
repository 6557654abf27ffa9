import HTTP
import Testing

struct HTTPPathPatternTests {
    @Test func matchesLiteralsAndParameters() {
        let pattern = HTTPPathPattern("/v1/streams/{name}")
        #expect(pattern.parameterNames == ["name"])
        #expect(pattern.values(["v1", "streams", "show"]) == ["show"])
        #expect(pattern.values(["v1", "streams"]) == nil)
        #expect(pattern.values(["v1", "streams", "show", "x"]) == nil)
        #expect(pattern.values(["v2", "streams", "show"]) == nil)
        #expect(HTTPPathPattern("/").values([]) == [])
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
        #expect(pattern.values(["static", "a", "b.css"]) == ["a/b.css"])
        #expect(pattern.values(["static"]) == [""])
        #expect(pattern.values(["other"]) == nil)
        #expect(HTTPPathPattern("/files/{...}").values(["files", "a", "b"]) == [])
    }
}
