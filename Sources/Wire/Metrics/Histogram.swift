/// Observations counted in buckets by upper bound, with their sum and count: the value of a Prometheus histogram.
///
/// A value type: whoever observes keeps it (under their own lock, or confined to one thread) and hands a copy to the
/// exposition. Observing is a short scan of the bounds, no allocation.
public struct Histogram: Sendable, Equatable {
    /// The buckets' inclusive upper bounds, ascending, without +Inf (always there).
    public let bounds: [Double]
    /// How many observations fell in each bucket (not cumulative); the last is the +Inf bucket's own.
    public private(set) var counts: [UInt64]
    /// The sum of all observations.
    public private(set) var sum: Double = 0
    /// How many observations there were.
    public private(set) var count: UInt64 = 0

    /// Creates an empty histogram.
    /// - Parameter bounds: finite upper bounds, strictly ascending.
    public init(bounds: [Double]) {
        precondition(!bounds.isEmpty && bounds.allSatisfy(\.isFinite), "a histogram needs finite bounds")
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Counts one observation, in the first bucket whose bound is at least the value (`le`: less or equal).
    public mutating func observe(_ value: Double) {
        var index = 0
        while index < bounds.count && value > bounds[index] { index += 1 }
        counts[index] += 1
        sum += value
        count += 1
    }

    /// The count at or below each bound, then +Inf's (the total), as the exposition writes them.
    public var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return counts.map { running += $0; return running }
    }
}
