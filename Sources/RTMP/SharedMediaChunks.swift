/// One media message's chunk bytes, encoded once and shared by every connection that sends with the same chunk size
/// on the same message stream id.
///
/// A relay sends each message to many players. Chunk-encoding it per player (and copying the body each time) was
/// most of a relay's user-space work; encoded with a type-0 header (``ChunkEncoder/encodeStandalone(_:chunkSize:)``)
/// the bytes do not depend on what each connection sent before, so players share one array. The cost is up to 11
/// header bytes per message over the smallest header. Encodings are made on first request and kept for the
/// message's life (usually one: every player of a server has the same chunk size and stream id 1).
public struct SharedMediaChunks: Sendable {
    /// The message (its own stream id is replaced by each request's).
    public let media: MediaMessage
    private var encodings: [(chunkSize: UInt32, streamID: UInt32, bytes: [UInt8])] = []

    /// Prepares to share `media`; nothing is encoded yet.
    public init(_ media: MediaMessage) {
        self.media = media
    }

    /// Bytes held by the encodings made so far.
    public var encodedByteCount: Int {
        encodings.reduce(0) { $0 + $1.bytes.count }
    }

    /// The chunk bytes of the message for a connection sending with `chunkSize` on message stream `streamID`.
    /// - Throws: ``RTMPError`` `.messageTooLarge` past RTMP's 24-bit length.
    public mutating func bytes(chunkSize: UInt32, streamID: UInt32) throws(RTMPError) -> [UInt8] {
        if let found = encodings.first(where: { $0.chunkSize == chunkSize && $0.streamID == streamID }) {
            return found.bytes
        }
        var message = media
        message.streamID = streamID
        let bytes = try ChunkEncoder.encodeStandalone(message.message, chunkSize: chunkSize)
        encodings.append((chunkSize, streamID, bytes))
        return bytes
    }
}
