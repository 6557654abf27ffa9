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

    /// `--public-url URL`: where people reach the server, so a watch page can name its poster with an absolute URL
    /// in its link preview (`og:image`). Never taken from a request's Host header, which a client chooses (and a
    /// cache in front would then keep a forged one for everyone).
    static let publicURLOption = OptionSpec.value(
        "public-url", valueName: "URL",
        help: "The address people reach this server at (https://live.example.com): watch pages then carry a link "
            + "preview with the show's poster (og:image).")

    /// `--public-url`, checked: http(s), a host, at most a path prefix (no query or fragment), without its last `/`.
    /// - Throws: `CLIError.usage` saying what is wrong.
    static func publicURL(_ arguments: ParsedArguments) throws(CLIError) -> String? {
        guard let text = arguments.value(publicURLOption.name) else { return nil }
        guard let url = HTTPURL(text), url.scheme == "http" || url.scheme == "https", !url.host.isEmpty,
              !text.contains("?"), !text.contains("#") else {
            throw CLIError.usage("--public-url must be an http:// or https:// URL without a query, not '\(text)'")
        }
        let path = url.target.hasSuffix("/") ? String(url.target.dropLast()) : url.target
        return "\(url.scheme)://\(url.hostField)\(path)"
    }

    /// Adds `/assets/{name}` (the player, for pages of your own) and, with live shows, `/watch/{stream}` (with a
    /// link preview when the public URL is known).
    static func addRoutes(to router: inout HTTPRouter, watchPages: Bool, publicURL: String? = nil) {
        if watchPages {
            router.add(.get, "/watch/{stream}", .immediate { request in
                page(for: request.parameters["stream"] ?? "", publicURL: publicURL)
            })
        }
        router.add(.get, "/assets/{name}", .immediate { request in
            guard let asset = WebAsset.named(request.parameters["name"] ?? "") else { return .status(.notFound) }
            return response(asset, cacheControl: WebAsset.cacheControl)
        })
    }

    /// The page, for a valid stream name (whether the stream is declared is for the protocol to say). With the
    /// public URL, its head names the show and its poster for link previews (Open Graph, Twitter's card).
    static func page(for stream: String, publicURL: String? = nil) -> HTTPResponse {
        guard StreamPattern.isValidName(stream), let asset = WebAsset.named("watch.html") else {
            return .status(.notFound, message: "not a stream name")
        }
        var response = pageResponse(asset)
        if let publicURL, let head = linkPreview(stream: stream, publicURL: publicURL, in: asset.bytes) {
            response.body = .bytes(head)
        }
        return response
    }

    /// The watch page's bytes with the show's name as its title and its link preview after it; nil when the page
    /// has no title to replace. A stream name is ASCII letters, digits and `:_.-` (``StreamPattern``): nothing in
    /// it needs escaping in a URL's path or an HTML attribute.
    static func linkPreview(stream: String, publicURL: String, in page: [UInt8]) -> [UInt8]? {
        let title = Array("<title>Watch — Stream</title>".utf8)
        guard let start = page.indices.dropLast(title.count - 1).first(where: { index in
            page[index..<index + title.count].elementsEqual(title)
        }) else { return nil }
        let tags = [
            "<title>\(stream) — Stream</title>",
            #"<meta property="og:type" content="video.other">"#,
            #"<meta property="og:title" content="\#(stream)">"#,
            #"<meta property="og:url" content="\#(publicURL)/watch/\#(stream)">"#,
            #"<meta property="og:image" content="\#(publicURL)/v1/streams/\#(stream)/poster.jpg">"#,
            #"<meta name="twitter:card" content="summary_large_image">"#,
        ]
        return Array(page[..<start]) + Array(tags.joined(separator: "\n").utf8) + page[(start + title.count)...]
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
