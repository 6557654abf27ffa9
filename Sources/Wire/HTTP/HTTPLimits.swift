/// Sizes past which a message is refused, each with the answer RFC 9110 §15.5 gives for it.
public struct HTTPLimits: Sendable, Equatable {
    /// The start line and header fields together (431 beyond it). 16 KiB, as nginx's default large buffers.
    public var maximumHeadSize: Int
    /// The request target (414 beyond it).
    public var maximumURILength: Int
    /// Field lines in one head (431 beyond it).
    public var maximumFieldCount: Int
    /// A chunk-size line with its extensions (400 beyond it).
    public var maximumChunkLineLength: Int
    /// Message bodies when nothing else says (413 beyond it); a server's route may set its own.
    public var maximumBodySize: Int

    /// Creates limits; the defaults are the documented ones (docs/http.md).
    public init(maximumHeadSize: Int = 16 * 1024, maximumURILength: Int = 8 * 1024, maximumFieldCount: Int = 100,
                maximumChunkLineLength: Int = 4096, maximumBodySize: Int = 1024 * 1024) {
        self.maximumHeadSize = maximumHeadSize
        self.maximumURILength = maximumURILength
        self.maximumFieldCount = maximumFieldCount
        self.maximumChunkLineLength = maximumChunkLineLength
        self.maximumBodySize = maximumBodySize
    }
}
