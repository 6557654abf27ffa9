import Foundation
import Testing
@testable import StreamCLI

/// The watch page's link preview (`--public-url`): the show's name and its poster by an absolute URL that comes from
/// the operator, never from a request.
@Suite struct ServeWatchTests {
    private func publicURL(_ text: String) throws(CLIError) -> String? {
        var arguments = ParsedArguments()
        arguments.values["public-url"] = [text]
        return try ServeWatch.publicURL(arguments)
    }

    @Test func thePublicURLIsHTTPWithAtMostAPathPrefix() throws {
        #expect(try publicURL("https://live.example.com") == "https://live.example.com")
        #expect(try publicURL("https://live.example.com/") == "https://live.example.com")
        #expect(try publicURL("http://127.0.0.1:8080/stream/") == "http://127.0.0.1:8080/stream")
        for bad in ["ftp://live.example.com", "live.example.com", "https://live.example.com/?a=1",
                    "https://live.example.com/#top", "https://user@live.example.com"] {
            #expect(throws: CLIError.self, "\(bad)") { _ = try publicURL(bad) }
        }
        #expect(try ServeWatch.publicURL(ParsedArguments()) == nil)
    }

    @Test func aPageWithThePublicURLNamesTheShowAndItsPoster() throws {
        let response = ServeWatch.page(for: "show:mugs", publicURL: "https://live.example.com")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("the page is not bytes")
            return
        }
        let html = String(decoding: bytes, as: UTF8.self)
        #expect(html.contains("<title>show:mugs — Stream</title>"))
        let poster = "https://live.example.com/v1/streams/show:mugs/poster.jpg"
        #expect(html.contains(#"<meta property="og:image" content="\#(poster)">"#))
        #expect(html.contains(#"<meta property="og:url" content="https://live.example.com/watch/show:mugs">"#))
        #expect(html.contains(#"<meta property="og:title" content="show:mugs">"#))
        #expect(!html.contains("<title>Watch — Stream</title>"))
        // Without it, the page is the compiled-in one, byte for byte.
        guard case .bytes(let plain) = ServeWatch.page(for: "show:mugs").body else {
            Issue.record("the page is not bytes")
            return
        }
        #expect(!String(decoding: plain, as: UTF8.self).contains("og:image"))
        #expect(ServeWatch.page(for: "bad name<", publicURL: "https://live.example.com").status == .notFound)
    }
}
