/// A file of the web front end (player, pages), compiled into the binary so `stream serve` needs nothing installed
/// beside it: the files under `Web/` are embedded by SwiftPM (`.embedInCode`) at build time.
public struct WebAsset: Sendable, Hashable {
    /// The file's name, e.g. "hls-player.js".
    public let name: String
    /// Its media type, with charset for text.
    public let contentType: String
    /// Its bytes.
    public let bytes: [UInt8]

    /// Every asset.
    public static let all: [WebAsset] = [
        WebAsset(name: "hls-player.js", contentType: "text/javascript; charset=utf-8",
                 bytes: PackageResources.hls_player_js),
        WebAsset(name: "hls.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.hls_html),
        WebAsset(name: "hls-page.js", contentType: "text/javascript; charset=utf-8",
                 bytes: PackageResources.hls_page_js),
        WebAsset(name: "hls.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.hls_css),
        WebAsset(name: "watch.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.watch_html),
        WebAsset(name: "watch.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.watch_js),
        WebAsset(name: "watch.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.watch_css),
    ]

    /// The asset of that name, if any.
    public static func named(_ name: String) -> WebAsset? {
        all.first { $0.name == name }
    }

    /// `Cache-Control` for assets: they change only with the binary, so a short cache with revalidation.
    public static let cacheControl = "public, max-age=300"
}
