import HTTP
import HTTPServer
import LiveShows
import WebAssets

/// `stream serve`'s watch page (issue 17): `/watch/{stream}` serves the page of a live show, which plays
/// `/hls/{stream}/{token}/main.m3u8` (its session's media token) with Stream's player and talks the live-show
/// protocol on `/v1/streams/{stream}`.
/// The page, its script, styles and the player are compiled in (`WebAssets`), served at `/assets/{name}`.
enum ServeWatch {
    /// Who may embed or script a page (the watch page, a plain publish's player page): only itself; media from blob
    /// URLs (Media Source), WebSockets to itself.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' data:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; "
        + "base-uri 'none'; form-action 'none'"

    /// Adds `/assets/{name}` (the player, for pages of your own) and, with live shows, `/watch/{stream}`.
    static func addRoutes(to router: inout HTTPRouter, watchPages: Bool) {
        if watchPages {
            router.add(.get, "/watch/{stream}", .immediate { request in
                page(for: request.parameters["stream"] ?? "")
            })
        }
        router.add(.get, "/assets/{name}", .immediate { request in
            guard let asset = WebAsset.named(request.parameters["name"] ?? "") else { return .status(.notFound) }
            return response(asset, cacheControl: WebAsset.cacheControl)
        })
    }

    /// The page, for a valid stream name (whether the stream is declared is for the protocol to say).
    static func page(for stream: String) -> HTTPResponse {
        guard StreamPattern.isValidName(stream), let asset = WebAsset.named("watch.html") else {
            return .status(.notFound, message: "not a stream name")
        }
        return pageResponse(asset)
    }

    /// The player page of a plain publish (`hls.html`, served beside its playlist: it plays `index.m3u8` in the
    /// same directory).
    static func playerPage() -> HTTPResponse {
        guard let asset = WebAsset.named("hls.html") else { return .status(.notFound) }
        return pageResponse(asset)
    }

    /// A page: revalidated on each load, under ``contentSecurityPolicy``, sending no referrer.
    private static func pageResponse(_ asset: WebAsset) -> HTTPResponse {
        var response = response(asset, cacheControl: "no-cache")
        response.headers.add("Content-Security-Policy", contentSecurityPolicy)
        response.headers.add("Referrer-Policy", "no-referrer")
        return response
    }

    private static func response(_ asset: WebAsset, cacheControl: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": asset.contentType, "Cache-Control": cacheControl,
                                            "X-Content-Type-Options": "nosniff"],
                     body: .bytes(asset.bytes))
    }
}
