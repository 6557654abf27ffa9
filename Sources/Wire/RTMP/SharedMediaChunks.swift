/// One media message's chunk bytes, encoded once and shared by every connection that sends with the same chunk size
/// on the same message stream id.
///
/// A relay sends each message to many players. Chunk-encoding it per player (and copying the body each time) was
/// most of a relay's user-space work; encoded with a type-0 header (``ChunkEncoder/encodeStandalone(_:chunkSize:)``)
/// the bytes do not depend on what each connection sent before, so players share one array. The cost is up to 11
/// header bytes per message over the smallest header. Encodings are made on first request and kept for the
/// message's life (usually one: every player of a server has the same chunk size and stream id 1).
///
/// A message kept for late joiners need not hold its body beside its encoding: ``dropBody()`` frees it, and a
/// request for another chunk size or stream id recovers the body from the first encoding.
public struct SharedMediaChunks: Sendable {
    /// Audio, video or data.
    public let kind: MediaMessage.Kind
    /// The timestamp in milliseconds.
    public let timestamp: UInt32
    /// The body's length in bytes.
    public let bodyCount: Int
    /// The body, until ``dropBody()``.
    private var body: [UInt8]?
    /// The first encoding, held inline: it is usually the only one, and an array of one would cost an allocation
    /// per relayed message.
    private var first: Encoding?
    /// Encodings for other chunk sizes or stream ids.
    private var others: [Encoding] = []

    private struct Encoding: Sendable {
        var chunkSize: UInt32
        var streamID: UInt32
        var bytes: [UInt8]
    }

    /// Prepares to share `media`; nothing is encoded yet.
    public init(_ media: MediaMessage) {
        kind = media.kind
        timestamp = media.timestamp
        bodyCount = media.body.count
        body = media.body
    }

    /// The message (with stream id 0: each request names its own), its body recovered from an encoding when it was
    /// dropped.
    public var media: MediaMessage {
        MediaMessage(kind: kind, timestamp: timestamp, streamID: 0, body: currentBody)
    }

    /// Bytes held by the encodings made so far.
    public var encodedByteCount: Int {
        others.reduce(first?.bytes.count ?? 0) { $0 + $1.bytes.count }
    }

    /// Bytes held: the body (until dropped) and the encodings.
    public var heldByteCount: Int {
        (body?.count ?? 0) + encodedByteCount
    }

    /// Frees the body once an encoding holds it; does nothing before the first encoding.
    public mutating func dropBody() {
        guard first != nil else { return }
        body = nil
    }

    /// The chunk bytes of the message for a connection sending with `chunkSize` on message stream `streamID`.
    /// - Throws: ``RTMPError`` `.messageTooLarge` past RTMP's 24-bit length.
    public mutating func bytes(chunkSize: UInt32, streamID: UInt32) throws(RTMPError) -> [UInt8] {
        if let first, first.chunkSize == chunkSize && first.streamID == streamID { return first.bytes }
        if let found = others.first(where: { $0.chunkSize == chunkSize && $0.streamID == streamID }) {
            return found.bytes
        }
        let message = RTMPMessage(chunkStreamID: kind.chunkStreamID, timestamp: timestamp, typeID: kind.rawValue,
                                  streamID: streamID, payload: currentBody)
        let bytes = try ChunkEncoder.encodeStandalone(message, chunkSize: chunkSize)
        let encoding = Encoding(chunkSize: chunkSize, streamID: streamID, bytes: bytes)
        if first == nil { first = encoding } else { others.append(encoding) }
        return bytes
    }

    /// The body, or the one the first encoding carries once it was dropped.
    private var currentBody: [UInt8] {
        if let body { return body }
        guard let first else { preconditionFailure("a body is dropped only once an encoding holds it") }
        return ChunkEncoder.standalonePayload(first.bytes, chunkStreamID: kind.chunkStreamID, timestamp: timestamp,
                                              length: bodyCount, chunkSize: first.chunkSize)
    }
}
