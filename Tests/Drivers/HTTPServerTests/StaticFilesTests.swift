import HTTP
import HTTPServer
import Testing

/// File responses without a server: paths that would leave their directory, conditions, ranges.
struct StaticFilesTests {
    private func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:]) throws -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: method, target: target, headers: headers),
                    target: try #require(HTTPRequestTarget(target)))
    }

    @Test func staticFilesRefuseHiddenAndParentSegments() throws {
        for segments in [[".."], ["a", "..", "b"], [".git", "config"], ["a/b"], ["x\0"]] {
            let response = StaticFiles.response(root: "/etc", segments: segments, request: try request(.get, "/x"))
            #expect(response.status == .notFound, "\(segments)")
        }
        let missing = StaticFiles.response(root: "/nonexistent", segments: ["a.txt"], request: try request(.get, "/a"))
        #expect(missing.status == .notFound)
        let wrongMethod = HTTPResponse.file(at: "/etc/hostname", for: try request(.post, "/a"))
        #expect(wrongMethod.status == .methodNotAllowed && wrongMethod.headers["Allow"] == "GET, HEAD")
    }

    @Test func aFileResponseCarriesItsTagAndHonoursConditions() throws {
        let plain = HTTPResponse.file(at: "/etc/hostname", for: try request(.get, "/hostname"))
        #expect(plain.status == .ok)
        let tag = try #require(plain.headers["ETag"])
        #expect(plain.headers["Accept-Ranges"] == "bytes")
        let conditional = HTTPResponse.file(at: "/etc/hostname",
                                            for: try request(.get, "/hostname", headers: ["If-None-Match": tag]))
        #expect(conditional.status == .notModified && conditional.headers["ETag"] == tag)
        let ranged = HTTPResponse.file(at: "/etc/hostname",
                                       for: try request(.get, "/h", headers: ["Range": "bytes=0-0", "If-Range": tag]))
        #expect(ranged.status == .partialContent)
        let stale = HTTPResponse.file(at: "/etc/hostname",
                                      for: try request(.get, "/h",
                                                       headers: ["Range": "bytes=0-0", "If-Range": "\"x\""]))
        #expect(stale.status == .ok)
    }
}
