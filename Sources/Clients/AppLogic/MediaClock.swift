/// Turns capture timestamps (seconds on the host clock, as `CMSampleBuffer` presentation times) into FLV
/// millisecond timestamps that start at zero with the first buffer of any kind, so audio and video share one
/// origin.
public struct MediaClock: Sendable, Hashable {
    /// The host time of the first buffer, once one was seen.
    public private(set) var origin: Double?

    /// Creates a clock with no origin yet.
    public init() {}

    /// The FLV timestamp of a buffer; the first call sets the origin.
    ///
    /// Buffers from before the origin (audio that was queued before the first frame) get 0. Timestamps wrap at
    /// 2^32 ms (about 49.7 days) as RTMP's do, without trapping.
    /// - Parameter seconds: the buffer's presentation time in seconds.
    /// - Returns: milliseconds since the origin, or nil for a non-finite time.
    public mutating func milliseconds(atSeconds seconds: Double) -> UInt32? {
        guard seconds.isFinite else { return nil }
        let origin = self.origin ?? seconds
        self.origin = origin
        let elapsed = ((seconds - origin) * 1000).rounded(.down)
        guard elapsed > 0 else { return 0 }
        guard elapsed < 9.0e15 else { return nil }
        return UInt32(truncatingIfNeeded: Int64(elapsed))
    }
}
