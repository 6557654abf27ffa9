import HLS

/// An answer of the LL-HLS origin, independent of the HTTP server that sends it.
public struct HLSReply: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The fields: Content-Type, Cache-Control, Access-Control-Allow-Origin.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// Creates a reply.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Players on other origins may read the stream: it is public to whoever knows its address.
    static let crossOrigin = ["Access-Control-Allow-Origin": "*"]

    /// 200 with a playlist.
    static func playlist(_ text: String, cacheControl: String) -> HLSReply {
        HLSReply(status: 200, headers: crossOrigin.merging(["Content-Type": HLSCachePolicy.playlistContentType,
                                                            "Cache-Control": cacheControl]) { $1 },
                 body: Array(text.utf8))
    }

    /// 200 with an init segment, part or segment.
    static func media(_ bytes: [UInt8]) -> HLSReply {
        HLSReply(status: 200, headers: crossOrigin.merging(["Content-Type": HLSCachePolicy.mediaContentType,
                                                            "Cache-Control": HLSCachePolicy.immutableMedia]) { $1 },
                 body: bytes)
    }

    /// An error with a one-line reason.
    static func error(_ status: Int, _ reason: String) -> HLSReply {
        HLSReply(status: status, headers: crossOrigin.merging(["Content-Type": "text/plain; charset=utf-8",
                                                               "Cache-Control": HLSCachePolicy.error]) { $1 },
                 body: Array((reason + "\n").utf8))
    }
}
