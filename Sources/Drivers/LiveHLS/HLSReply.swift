import HLS

/// An answer of the LL-HLS origin, independent of the HTTP server that sends it.
///
/// Its fields are fixed (Access-Control-Allow-Origin, Content-Type, Cache-Control, in that order), kept as two
/// strings rather than a dictionary: a server answering a thousand requests a second builds no table per answer.
/// The body is shared, not copied: every reader of a part gets the packager's own bytes.
public struct HLSReply: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The Content-Type field.
    public var contentType: String
    /// The Cache-Control field.
    public var cacheControl: String
    /// The body.
    public var body: [UInt8]

    /// Creates a reply.
    public init(status: Int, contentType: String, cacheControl: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.body = body
    }

    /// Players on other origins may read the stream: it is public to whoever knows its address.
    public static let allowedOrigin = "*"
    /// The Content-Type of an init segment, part or segment.
    public static let mediaContentType = HLSCachePolicy.mediaContentType
    /// The Cache-Control of an init segment, part or segment.
    public static let mediaCacheControl = HLSCachePolicy.immutableMedia

    /// The fields, in the order they are sent: Access-Control-Allow-Origin, Content-Type, Cache-Control.
    public var fields: [(name: String, value: String)] {
        [("Access-Control-Allow-Origin", Self.allowedOrigin), ("Content-Type", contentType),
         ("Cache-Control", cacheControl)]
    }

    /// The fields by name (for tests and tools).
    public var headers: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) })
    }

    /// 200 with a playlist's bytes.
    static func playlist(_ bytes: [UInt8], cacheControl: String) -> HLSReply {
        HLSReply(status: 200, contentType: HLSCachePolicy.playlistContentType, cacheControl: cacheControl, body: bytes)
    }

    /// 200 with an init segment, part or segment.
    static func media(_ bytes: [UInt8]) -> HLSReply {
        HLSReply(status: 200, contentType: mediaContentType, cacheControl: mediaCacheControl, body: bytes)
    }

    /// An error with a one-line reason.
    static func error(_ status: Int, _ reason: String) -> HLSReply {
        HLSReply(status: status, contentType: "text/plain; charset=utf-8", cacheControl: HLSCachePolicy.error,
                 body: Array((reason + "\n").utf8))
    }
}
