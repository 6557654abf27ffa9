import Foundation
import Testing
import WebAssets

/// The web files compiled into the binary are the ones in the repository, and the page names what exists.
@Suite struct WebAssetTests {
    static func source(_ name: String) throws -> [UInt8] {
        // Tests/Apps/WebAssetsTests/WebAssetTests.swift, four levels under the package.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Apps/WebAssets/Web/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    @Test(arguments: ["hls-player.js", "hls.html", "hls-page.js", "hls.css", "watch.html", "watch.js", "watch.css"])
    func theEmbeddedAssetIsTheFileInTheRepository(name: String) throws {
        let asset = try #require(WebAsset.named(name))
        #expect(asset.bytes == (try Self.source(name)))
        #expect(asset.contentType.hasSuffix("charset=utf-8"))
    }

    @Test func thePagePlaysWithThePlayerItNames() throws {
        let page = String(decoding: try #require(WebAsset.named("hls.html")).bytes, as: UTF8.self)
        for name in ["hls-player.js", "hls-page.js"] {
            #expect(page.contains("<script src=\"/assets/\(name)\"></script>"))
        }
        #expect(page.contains("<link rel=\"stylesheet\" href=\"/assets/hls.css\">"))
        // No inline script or style: the page is served under the watch page's Content-Security-Policy.
        #expect(!page.contains("<script>") && !page.contains("<style>"))
        let script = String(decoding: try #require(WebAsset.named("hls-page.js")).bytes, as: UTF8.self)
        #expect(script.contains("new StreamHLSPlayer("))
        let player = String(decoding: try #require(WebAsset.named("hls-player.js")).bytes, as: UTF8.self)
        #expect(player.contains("global.StreamHLSPlayer = StreamHLSPlayer;"))
        // No outside resource: the page must work on a machine without internet.
        #expect(!page.contains("http://") && !page.contains("https://"))
        #expect(!player.contains("http://") && !player.contains("https://"))
        #expect(WebAsset.named("../Package.swift") == nil)
    }

    @Test func theWatchPageLoadsItsOwnFilesAndNothingFromOutside() throws {
        let page = String(decoding: try #require(WebAsset.named("watch.html")).bytes, as: UTF8.self)
        for name in ["hls-player.js", "watch.js"] {
            #expect(page.contains("<script src=\"/assets/\(name)\"></script>"))
            #expect(WebAsset.named(name) != nil)
        }
        #expect(page.contains("<link rel=\"stylesheet\" href=\"/assets/watch.css\">"))
        // No inline script: the page's Content-Security-Policy allows only its own files.
        #expect(!page.contains("<script>") && !page.contains("<style>"))
        #expect(page.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "an inline event handler")
        for name in ["watch.html", "watch.js", "watch.css"] {
            let text = String(decoding: try #require(WebAsset.named(name)).bytes, as: UTF8.self)
            #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"), "\(name)")
            #expect(!text.contains("@import") && !text.contains("url(http"), "\(name)")
        }
        let script = String(decoding: try #require(WebAsset.named("watch.js")).bytes, as: UTF8.self)
        // The player the page uses is the one compiled in, and user text is never parsed as HTML.
        #expect(script.contains("new StreamHLSPlayer("))
        #expect(!script.contains("message.text + ") && script.contains("text.textContent = message.text"))
    }
}
