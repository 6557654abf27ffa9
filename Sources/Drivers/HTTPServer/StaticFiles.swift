import HTTP

extension HTTPResponse {
    /// Serves a file the way nginx does for GET and HEAD: `ETag` from its size and modification time,
    /// `If-None-Match` → 304, one `Range` → 206 with `Content-Range` (416 past the end; `If-Range` with another
    /// tag sends the whole file), `Accept-Ranges: bytes`.
    /// - Parameters:
    ///   - path: the file.
    ///   - request: the request (its method and conditional fields).
    ///   - contentType: the media type; by default from the file's extension.
    /// - Returns: the response; 404 when the path is not a readable regular file.
    public static func file(at path: String, for request: HTTPRequest, contentType: String? = nil) -> HTTPResponse {
        guard case .file(let file) = OpenFile.open(path) else { return .status(.notFound) }
        return fileResponse(file, path: path, for: request, contentType: contentType)
    }

    static func fileResponse(_ file: OpenFile, path: String, for request: HTTPRequest,
                             contentType: String?) -> HTTPResponse {
        guard request.method == .get || request.method == .head else {
            var response = HTTPResponse.status(.methodNotAllowed)
            response.headers.add("Allow", "GET, HEAD")
            return response
        }
        let tagField = file.entityTagField
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)  // room for Date, Server, Content-Length and Connection to come
        headers.add("Content-Type", contentType ?? MediaType.forPath(path))
        headers.add("ETag", tagField)
        headers.add("Accept-Ranges", "bytes")
        if let condition = request.headers["If-None-Match"],
           HTTPEntityTag.ifNoneMatch(condition, matches: file.entityTag) {
            headers.remove("Content-Type")
            return HTTPResponse(status: .notModified, headers: headers)
        }
        var range = 0..<file.size
        var status = HTTPStatus.ok
        if let value = request.headers["Range"], let requested = HTTPByteRange(value),
           rangeApplies(request, file.entityTag) {
            switch requested.resolve(length: file.size) {
            case .partial(let partial):
                range = partial
                status = .partialContent
                headers.add("Content-Range", "bytes \(partial.lowerBound)-\(partial.upperBound - 1)/\(file.size)")
            case .unsatisfiable:
                return HTTPResponse(status: .rangeNotSatisfiable,
                                    headers: ["Content-Range": "bytes */\(file.size)", "ETag": tagField])
            }
        }
        return HTTPResponse(status: status, headers: headers,
                            body: .file(HTTPFileBody(path: path, range: range, file: file)))
    }

    /// RFC 9110 §13.1.5: with `If-Range`, the range applies only if the tag still matches (strongly).
    private static func rangeApplies(_ request: HTTPRequest, _ tag: HTTPEntityTag) -> Bool {
        guard let condition = request.headers["If-Range"] else { return true }
        return HTTPEntityTag(parsing: Substring(condition)).map { $0.stronglyMatches(tag) } ?? false
    }
}

/// Files under a directory, addressed by decoded path segments (a route's `{path...}`).
public enum StaticFiles {
    /// The response for `segments` under `root`: the file, `index.html` for a directory, or 404. Segments that
    /// could leave the directory or reach hidden files ("..", ".", ".git", anything with "/" or NUL) are 404.
    public static func response(root: String, segments: [String], request: HTTPRequest) -> HTTPResponse {
        response(root: root, segments: segments, request: request, cache: nil)
    }

    /// As ``response(root:segments:request:)``, reusing the descriptors `cache` holds (a route's cache).
    static func response(root: String, segments: [String], request: HTTPRequest,
                         cache: OpenFileCache?) -> HTTPResponse {
        for segment in segments {
            let utf8 = segment.utf8
            if utf8.first == UInt8(ascii: ".") || utf8.contains(UInt8(ascii: "/")) || utf8.contains(0) {
                return .status(.notFound)
            }
        }
        var path = root
        path.reserveCapacity(root.utf8.count + segments.reduce(0) { $0 + $1.utf8.count + 1 })
        for segment in segments {
            path += "/"
            path += segment
        }
        if segments.isEmpty { path += "/" }
        switch cache?.open(path) ?? OpenFile.open(path) {
        case .file(let file):
            return .fileResponse(file, path: path, for: request, contentType: nil)
        case .directory:
            path += (path.hasSuffix("/") ? "" : "/") + "index.html"
            return .file(at: path, for: request)
        case .missing:
            return .status(.notFound)
        }
    }
}

/// Media types by file extension, for the files Stream serves (pages, scripts, playlists, segments).
enum MediaType {
    private static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "txt": "text/plain; charset=utf-8", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "ico": "image/x-icon",
        "webp": "image/webp", "woff2": "font/woff2", "wasm": "application/wasm",
        "m3u8": "application/vnd.apple.mpegurl", "mp4": "video/mp4", "m4s": "video/iso.segment",
        "m4a": "audio/mp4", "ts": "video/mp2t", "flv": "video/x-flv",
    ]

    /// The media type for a path's extension, `application/octet-stream` when unknown.
    static func forPath(_ path: String) -> String {
        // The commonest without hashing a string: asked for every file response.
        if path.utf8.count > 5 && path.utf8.suffix(5).elementsEqual(".html".utf8) { return "text/html; charset=utf-8" }
        let utf8 = path.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")),
              !utf8[dot...].contains(UInt8(ascii: "/")) else { return "application/octet-stream" }
        let suffix = String(Substring(utf8[utf8.index(after: dot)...]))
        return byExtension[suffix] ?? byExtension[suffix.lowercased()] ?? "application/octet-stream"
    }
}
