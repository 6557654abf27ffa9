/// Capture-to-socket latencies in whole milliseconds, counted in fixed buckets so that a long broadcast records
/// every frame in constant memory.
public struct LatencyHistogram: Sendable, Hashable {
    /// Latencies at or above this many milliseconds share the last bucket.
    public static let bucketCount = 2000

    private var buckets = [Int](repeating: 0, count: LatencyHistogram.bucketCount)
    /// How many latencies were recorded.
    public private(set) var count = 0

    /// Creates an empty histogram.
    public init() {}

    /// Records one latency; negative values count as 0.
    public mutating func record(milliseconds: Int) {
        buckets[min(max(0, milliseconds), Self.bucketCount - 1)] += 1
        count += 1
    }

    /// The latency below which `fraction` (0...1) of the recorded ones fall, or nil when nothing was recorded.
    public func percentile(_ fraction: Double) -> Int? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (milliseconds, hits) in buckets.enumerated() {
            seen += hits
            if seen >= rank { return milliseconds }
        }
        return Self.bucketCount - 1
    }
}
