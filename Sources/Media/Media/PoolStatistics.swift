/// Counters of a buffer pool. In the steady state `allocations` stops growing and `reuses` grows by one per frame.
public struct PoolStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Buffers allocated from the system since the pool was created (never more than the pool's maximum).
    public var allocations = 0
    /// Checkouts served from a previously returned buffer.
    public var reuses = 0
    /// Buffers currently checked out (held by live frames).
    public var inUse = 0
    /// The largest `inUse` seen.
    public var peakInUse = 0
    /// Checkouts refused because the maximum number of buffers was in use (each one is a dropped frame).
    public var exhaustions = 0

    /// Creates zeroed counters.
    public init() {}

    /// For example "allocations 3, reuses 297, in use 1 (peak 3), exhausted 0".
    public var description: String {
        "allocations \(allocations), reuses \(reuses), in use \(inUse) (peak \(peakInUse)), exhausted \(exhaustions)"
    }
}
