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

    @Test func restParameterTakesTheRest() {
        let pattern = HTTPPathPattern("/static/{path...}")
        #expect(pattern.match(["static", "a", "b.css"]) == ["path": "a/b.css"])
        #expect(pattern.match(["static"]) == ["path": ""])
        #expect(pattern.match(["other"]) == nil)
        #expect(HTTPPathPattern("/files/{...}").match(["files", "a", "b"]) == [:])
    }
}
