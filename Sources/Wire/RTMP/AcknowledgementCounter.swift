/// Counts bytes received and says when to send an Acknowledgement (RTMP §5.4.3, §5.4.4): after the peer's
/// Window Acknowledgement Size worth of bytes since the last one.
public struct AcknowledgementCounter: Sendable, Equatable {
    /// The window the peer announced, or nil before it did (no acknowledgements then).
    public var windowSize: UInt32?
    /// RTMP §5.4.3: the sequence number is the bytes received so far; it wraps at 2^32.
    public private(set) var totalReceived: UInt32 = 0
    private var sinceLastAcknowledgement: UInt64 = 0

    /// Creates a counter with no window yet.
    public init(windowSize: UInt32? = nil) {
        self.windowSize = windowSize
    }

    /// Records received bytes.
    /// - Parameter count: how many bytes arrived.
    /// - Returns: the sequence number to acknowledge now, or nil.
    public mutating func received(_ count: Int) -> UInt32? {
        totalReceived = totalReceived &+ UInt32(truncatingIfNeeded: count)
        sinceLastAcknowledgement &+= UInt64(max(count, 0))
        guard let windowSize, windowSize > 0, sinceLastAcknowledgement >= UInt64(windowSize) else { return nil }
        sinceLastAcknowledgement = 0
        return totalReceived
    }
}
