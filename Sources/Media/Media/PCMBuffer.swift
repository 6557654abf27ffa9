/// A buffer of interleaved PCM audio with a presentation timestamp, in pooled memory.
///
/// Like ``VideoFrame``: copies share the samples, and writing requires the only reference.
public struct PCMBuffer: Sendable {
    /// Sample format, rate and channel count.
    public let format: PCMFormat
    /// Sample frames (per channel) in the buffer.
    public let frameCount: Int
    /// Presentation timestamp of the first sample frame, in nanoseconds on a monotonic clock.
    public var pts: Int64
    var storage: PixelStorage

    init(format: PCMFormat, frameCount: Int, pts: Int64, storage: PixelStorage) {
        precondition(storage.byteCount >= frameCount * format.bytesPerFrame, "buffer is smaller than the samples")
        self.format = format
        self.frameCount = frameCount
        self.pts = pts
        self.storage = storage
    }

    /// A one-off zeroed buffer outside any pool.
    public init(format: PCMFormat, frameCount: Int, pts: Int64 = 0) {
        precondition(frameCount >= 0, "frame count must not be negative")
        self.init(format: format, frameCount: frameCount, pts: pts,
                  storage: PixelStorage(unpooledByteCount: frameCount * format.bytesPerFrame))
    }

    /// Bytes of interleaved samples.
    public var byteCount: Int { frameCount * format.bytesPerFrame }

    /// Duration in nanoseconds.
    public var duration: Int64 { Int64(frameCount) * 1_000_000_000 / Int64(format.sampleRate) }

    /// Calls `body` with the interleaved samples as raw bytes; valid only inside `body`.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(storage) { () throws(Failure) -> Result in
            try body(UnsafeRawBufferPointer(start: storage.base, count: byteCount))
        }
    }

    /// Calls `body` with the interleaved samples as writable raw bytes; valid only inside `body`.
    /// - Precondition: this value holds the only reference to its storage.
    public mutating func withUnsafeMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(isKnownUniquelyReferenced(&storage), "writing a PCM buffer that is shared with others")
        let bytes = UnsafeMutableRawBufferPointer(start: storage.base, count: byteCount)
        return try withExtendedLifetime(storage) { () throws(Failure) -> Result in try body(bytes) }
    }

    /// The samples as floats, scaling `int16` by 1/32768 (for checks, not hot paths).
    public func floatSamples() -> [Float] {
        let format = format
        let count = frameCount * format.channels
        return withUnsafeBytes { bytes in
            switch format.sampleFormat {
            case .float32:
                return Array(bytes.bindMemory(to: Float.self).prefix(count))
            case .int16:
                return bytes.bindMemory(to: Int16.self).prefix(count).map { Float($0) / 32_768 }
            }
        }
    }
}
