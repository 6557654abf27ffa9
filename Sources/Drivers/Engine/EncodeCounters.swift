/// What the encoding side of a broadcast has done so far, published to the ``BroadcastEngine`` after each frame (the
/// engine turns them into rates once per second).
public struct EncodeCounters: Sendable, Hashable {
    /// Video bytes encoded.
    public var videoBytes = 0
    /// Audio bytes encoded.
    public var audioBytes = 0
    /// Video frames encoded.
    public var framesEncoded = 0
    /// Audio frames (AAC packets) encoded.
    public var audioFramesEncoded = 0
    /// Frames skipped because the encoding side fell behind real time (or had no buffer).
    public var framesSkippedLate = 0
    /// The encoder's video bitrate now, in kbit/s.
    public var videoBitrateKbps = 0
    /// Time spent producing video frames (render, convert, composite, encode), in seconds.
    public var videoWorkSeconds = 0.0
    /// Seconds since the media clock started (0 before).
    public var elapsedSeconds = 0.0

    /// Zeroed counters.
    public init() {}
}
