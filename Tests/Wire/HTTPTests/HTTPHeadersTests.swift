import HTTP
import Testing

struct HTTPHeadersTests {
    @Test func looksUpNamesCaseInsensitively() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Many": "a", "x-many": "b"]
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values("X-MANY") == ["a", "b"])
        headers.set("X-Many", "c")
        #expect(headers.values("x-many") == ["c"])
        headers.remove("CONTENT-TYPE")
        #expect(!headers.contains("Content-Type"))
        #expect(headers.count == 1)
    }

    @Test func splitsListsAcrossFields() {
        let headers: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "Connection": " ,close ,"]
        #expect(headers.listElements("connection") == ["keep-alive", "Upgrade", "close"])
        #expect(headers.contains("Connection", token: "upgrade"))
        #expect(!headers.contains("Connection", token: "up"))
    }
}
