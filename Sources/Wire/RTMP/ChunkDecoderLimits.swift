/// What a `ChunkDecoder` accepts from a peer, so that a hostile peer cannot make it allocate without bound.
public struct ChunkDecoderLimits: Sendable, Equatable {
    /// The largest Set Chunk Size accepted. RTMP §5.4.1 allows up to 0x7FFFFFFF; a whole chunk is buffered
    /// before it is parsed, so we cap it at 16 MiB.
    public var maximumChunkSize: UInt32
    /// The largest message accepted. RTMP §5.3.1.2.2 allows up to 0xFFFFFF (a 24-bit field); 8 MiB holds the
    /// biggest keyframes of a 4K stream.
    public var maximumMessageLength: Int
    /// The most payload bytes held in partially received messages, across all chunk streams.
    public var maximumBufferedBytes: Int
    /// The most chunk streams with a partially received message at the same time.
    public var maximumChunkStreamsInProgress: Int
    /// The most distinct chunk streams remembered (each keeps its previous header, RTMP §5.3.1.2).
    public var maximumChunkStreams: Int

    /// Creates limits.
    public init(maximumChunkSize: UInt32 = 0x100_0000, maximumMessageLength: Int = 8 * 1024 * 1024,
                maximumBufferedBytes: Int = 16 * 1024 * 1024, maximumChunkStreamsInProgress: Int = 32,
                maximumChunkStreams: Int = 256) {
        self.maximumChunkSize = maximumChunkSize
        self.maximumMessageLength = maximumMessageLength
        self.maximumBufferedBytes = maximumBufferedBytes
        self.maximumChunkStreamsInProgress = maximumChunkStreamsInProgress
        self.maximumChunkStreams = maximumChunkStreams
    }

    /// The defaults: 16 MiB chunks, 8 MiB messages, 16 MiB buffered, 32 chunk streams in progress, 256 known.
    public static let `default` = ChunkDecoderLimits()

    /// What a peer that has not been allowed to publish needs: commands (`connect`, `createStream`, `publish`,
    /// `play`: a few hundred bytes each) and control messages. 64 KiB chunks (the top of the range SRS calls valid:
    /// it warns about any peer that sets more), 64 KiB messages and 64 KiB buffered in all, 8 chunk streams in
    /// progress and 64 known: a peer that never gets that far can hold about 128 KiB, not the 32 MiB of
    /// ``default``.
    public static let commands = ChunkDecoderLimits(maximumChunkSize: 0x1_0000, maximumMessageLength: 0x1_0000,
                                                    maximumBufferedBytes: 0x1_0000, maximumChunkStreamsInProgress: 8,
                                                    maximumChunkStreams: 64)
}
