/// Turns FLV's 32-bit millisecond timestamps, which wrap after ~49.7 days, into a 64-bit timeline.
///
/// Each timestamp is taken as the nearest one to the previous (within ±24.8 days), so audio and video tags that
/// arrive slightly out of order, and the wrap itself, both land where they belong.
public struct TimestampUnwrapper: Sendable {
    private var last: (raw: UInt32, extended: Int64)?

    /// Creates an unwrapper; the first timestamp is taken as it is.
    public init() {}

    /// The 64-bit millisecond time of a 32-bit timestamp.
    public mutating func extend(_ raw: UInt32) -> Int64 {
        let extended: Int64
        if let last {
            extended = last.extended + Int64(Int32(bitPattern: raw &- last.raw))
        } else {
            extended = Int64(raw)
        }
        last = (raw, extended)
        return extended
    }
}
