/// How one PCM sample is stored.
public enum SampleFormat: Sendable, Hashable, CustomStringConvertible {
    /// Signed 16-bit integers, native (little) endian.
    case int16
    /// 32-bit IEEE floats, nominally in -1...1.
    case float32

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .float32: 4
        }
    }

    /// "s16" or "f32", as ffmpeg names them.
    public var description: String {
        switch self {
        case .int16: "s16"
        case .float32: "f32"
        }
    }
}

/// The shape of interleaved PCM audio.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    /// How each sample is stored.
    public var sampleFormat: SampleFormat
    /// Sample frames per second (48 000 for broadcast audio).
    public var sampleRate: Int
    /// Interleaved channels per sample frame (2 = stereo, left first).
    public var channels: Int

    /// Describes interleaved PCM.
    /// - Precondition: `sampleRate` and `channels` are positive.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channels: Int) {
        precondition(sampleRate > 0 && channels > 0, "PCM needs a positive sample rate and channel count")
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes per sample frame (all channels of one instant).
    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }

    /// For example "f32 48000 Hz 2 ch".
    public var description: String { "\(sampleFormat) \(sampleRate) Hz \(channels) ch" }
}

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
