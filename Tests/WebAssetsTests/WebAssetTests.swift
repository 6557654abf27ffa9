import Foundation
import Testing
import WebAssets

/// The web files compiled into the binary are the ones in the repository, and the page names what exists.
@Suite struct WebAssetTests {
    static func source(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/WebAssets/Web/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    @Test(arguments: ["hls-player.js", "hls.html"])
    func theEmbeddedAssetIsTheFileInTheRepository(name: String) throws {
        let asset = try #require(WebAsset.named(name))
        #expect(asset.bytes == (try Self.source(name)))
        #expect(asset.contentType.hasSuffix("charset=utf-8"))
    }

    @Test func thePagePlaysWithThePlayerItNames() throws {
        let page = String(decoding: try #require(WebAsset.named("hls.html")).bytes, as: UTF8.self)
        #expect(page.contains("<script src=\"/assets/hls-player.js\"></script>"))
        #expect(page.contains("new StreamHLSPlayer("))
        let player = String(decoding: try #require(WebAsset.named("hls-player.js")).bytes, as: UTF8.self)
        #expect(player.contains("global.StreamHLSPlayer = StreamHLSPlayer;"))
        // No outside resource: the page must work on a machine without internet.
        #expect(!page.contains("http://") && !page.contains("https://"))
        #expect(!player.contains("http://") && !player.contains("https://"))
        #expect(WebAsset.named("../Package.swift") == nil)
    }
}
