/// Interleaved samples gathered into whole AAC frames, and the timestamps of the packets an encoder returns for them:
/// the part of an AAC encoder that is arithmetic, shared by libvo-aacenc here and AudioToolbox on iOS.
///
/// The encoder's loop: `fill` until `isFull`, encode the frame (`withFrame`), `startNextFrame`; at the end, while
/// `padLastFrame` says there is a frame left, encode it and `startNextFrame`. One frame buffer is made, once. Each
/// packet the encoder returns is timed by `timePacket`: packet k starts at sample k × 1024 − `primingSamples` of the
/// input, and the last one's duration ends at the last input sample.
public struct AACFrameBuffer: Sendable {
    /// Samples per channel in one AAC-LC frame (ISO/IEC 14496-3 §4.5.1.1, frameLengthFlag 0).
    public static let samplesPerFrame = 1024

    /// Interleaved channels per sample frame.
    public let channels: Int
    /// Samples a decoder outputs before the first input sample (the encoder's delay).
    public let primingSamples: Int
    /// Samples per channel received so far.
    public private(set) var samplesIn: Int64 = 0
    /// Frames handed to the encoder so far (`startNextFrame` calls).
    public private(set) var framesOut: Int64 = 0
    /// Packets timed so far (`timePacket` calls).
    public private(set) var packetsOut: Int64 = 0
    /// One frame of interleaved samples, filled across `fill` calls.
    private var frame: [Float]
    /// Samples per channel already in `frame`.
    private var filled = 0

    /// Creates an empty buffer.
    /// - Parameters:
    ///   - channels: interleaved channels, at least 1.
    ///   - primingSamples: the encoder's delay in samples per channel, at least 0.
    public init(channels: Int, primingSamples: Int) {
        precondition(channels > 0 && primingSamples >= 0, "an AAC frame buffer needs channels and a delay ≥ 0")
        self.channels = channels
        self.primingSamples = primingSamples
        frame = [Float](repeating: 0, count: Self.samplesPerFrame * channels)
    }

    /// Whether the frame is complete: encode it, then call `startNextFrame`.
    public var isFull: Bool { filled == Self.samplesPerFrame }

    /// Copies samples into the frame until it is full or they run out.
    /// - Parameters:
    ///   - samples: interleaved samples, a whole number of sample frames (the encoder checks its input first).
    ///   - offset: where in `samples` to start, a multiple of `channels`.
    /// - Returns: how many of `samples` were taken (0 when the frame is already full).
    public mutating func fill(from samples: UnsafeBufferPointer<Float>, at offset: Int) -> Int {
        precondition(offset % channels == 0 && samples.count % channels == 0, "samples must be whole sample frames")
        let count = min(Self.samplesPerFrame - filled, (samples.count - offset) / channels)
        guard count > 0 else { return 0 }
        let taken = count * channels
        let start = filled * channels
        frame.withUnsafeMutableBufferPointer { destination in
            guard let to = destination.baseAddress, let from = samples.baseAddress else { return }
            (to + start).update(from: from + offset, count: taken)
        }
        filled += count
        samplesIn += Int64(count)
        return taken
    }

    /// Pads the frame with silence when a frame is still to be encoded at the end: the short last one, and when
    /// `coveringPriming` the silent ones after it until the frames out cover `primingSamples` plus every input
    /// sample (an encoder that must be fed silence to push its delayed samples out, as libvo-aacenc; AudioToolbox
    /// drains itself at the end of stream).
    /// - Parameter coveringPriming: whether the frames out must also cover the encoder's delay.
    /// - Returns: true when the frame is full and must be encoded (then `startNextFrame`), false when none is left.
    public mutating func padLastFrame(coveringPriming: Bool) -> Bool {
        let frameLength = Int64(Self.samplesPerFrame)
        let covered = samplesIn + (coveringPriming ? Int64(primingSamples) : 0)
        guard framesOut < (covered + frameLength - 1) / frameLength else { return false }
        let start = filled * channels
        frame.withUnsafeMutableBufferPointer { buffer in
            for index in start..<buffer.count { buffer[index] = 0 }
        }
        filled = Self.samplesPerFrame
        return true
    }

    /// Reads the frame being filled (full when `isFull`).
    /// - Parameter body: given the interleaved samples, valid only during the call.
    /// - Returns: what `body` returns.
    public func withFrame<Result>(_ body: (UnsafeBufferPointer<Float>) throws -> Result) rethrows -> Result {
        try frame.withUnsafeBufferPointer(body)
    }

    /// The full frame went to the encoder: counts it and starts the next one.
    public mutating func startNextFrame() {
        precondition(isFull, "only a full frame goes to the encoder")
        filled = 0
        framesOut += 1
    }

    /// The next packet's start and length, in samples per channel from the first input sample, counting it out.
    /// - Returns: `pts` = packets before it × 1024 − `primingSamples`; `duration` = 1024, cut so that it ends at the
    ///   last input sample received so far (0 for a packet wholly past it).
    public mutating func timePacket() -> (pts: Int64, duration: Int64) {
        let frameLength = Int64(Self.samplesPerFrame)
        let pts = packetsOut * frameLength - Int64(primingSamples)
        packetsOut += 1
        return (pts, max(0, min(frameLength, samplesIn - pts)))
    }
}
