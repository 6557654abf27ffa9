/// A bounded pool of PCM buffers of one format and length; the audio counterpart of ``FramePool``.
///
/// ``makeBuffer(pts:)`` returns nil when `maxCount` buffers are alive; the caller drops that buffer.
public final class PCMBufferPool: Sendable {
    /// The format of every buffer.
    public let format: PCMFormat
    /// Sample frames per buffer.
    public let frameCount: Int
    private let storage: StoragePool

    /// Creates an empty pool; buffers are allocated on demand, up to `maxCount`.
    /// - Parameters:
    ///   - format: sample format, rate and channels.
    ///   - frameCount: sample frames per buffer (e.g. 1024 for one AAC frame).
    ///   - maxCount: the most buffers alive at once (at least 1).
    public init(format: PCMFormat, frameCount: Int, maxCount: Int) {
        precondition(frameCount > 0, "a PCM buffer needs at least one sample frame")
        self.format = format
        self.frameCount = frameCount
        storage = StoragePool(byteCount: frameCount * format.bytesPerFrame, maxCount: maxCount)
    }

    /// The most buffers alive at once.
    public var maxCount: Int { storage.maxCount }

    /// Allocation, reuse and occupancy counters.
    public var statistics: PoolStatistics { storage.statistics }

    /// Checks out a buffer holding whatever its previous user left.
    /// - Returns: the buffer, or nil when `maxCount` buffers are in use.
    public func makeBuffer(pts: Int64) -> PCMBuffer? {
        guard let buffer = storage.checkOut() else { return nil }
        return PCMBuffer(format: format, frameCount: frameCount, pts: pts, storage: buffer)
    }
}
