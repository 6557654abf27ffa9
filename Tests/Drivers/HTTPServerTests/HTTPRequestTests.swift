import HTTP
import HTTPServer
import Testing

struct HTTPRequestTests {
    private func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:]) throws -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: method, target: target, headers: headers),
                    target: try #require(HTTPRequestTarget(target)))
    }

    @Test func bearerTokensAndQueryValues() throws {
        let request = try request(.get, "/v1/streams/show?access_token=a%2Bb",
                                  headers: ["Authorization": "Bearer  tok.en"])
        #expect(request.queryValue("access_token") == "a+b")
        #expect(request.bearerToken == "tok.en")
        #expect(try self.request(.get, "/", headers: ["Authorization": "Basic abc"]).bearerToken == nil)
    }
}
