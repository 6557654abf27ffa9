/// How ``LLHLSPackager`` cuts a stream and how much of it it keeps.
public struct HLSConfiguration: Sendable, Hashable {
    /// PART-TARGET in milliseconds: no part is longer (RFC 8216bis §4.4.4.9), and every part but a segment's last
    /// is at least 85 % of it. The default, 334 ms, holds 10 frames at 30 fps (8 at 25, 20 at 60).
    public var partTargetMilliseconds: Int
    /// A keyframe ends the segment once it has lasted this long; segments are as long as the publisher's keyframe
    /// interval or a multiple of it (the default, 1 s, makes a 2 s GOP a 2 s segment).
    public var minimumSegmentMilliseconds: Int
    /// Complete segments listed in the playlist (and kept in memory); older ones are dropped. At least 4, so the
    /// playlist spans the three target durations a non-LL player holds back.
    public var windowSegments: Int
    /// The most bytes of media kept; past it the oldest segments are dropped even inside the window.
    public var maximumWindowBytes: Int

    /// The smallest PART-TARGET accepted.
    public static let partTargetRange = 100...2000
    /// The fewest segments in the window.
    public static let minimumWindowSegments = 4

    /// Creates a configuration; out-of-range values are clamped.
    public init(partTargetMilliseconds: Int = 334, minimumSegmentMilliseconds: Int = 1000, windowSegments: Int = 6,
                maximumWindowBytes: Int = 64 << 20) {
        self.partTargetMilliseconds = min(max(partTargetMilliseconds, Self.partTargetRange.lowerBound),
                                          Self.partTargetRange.upperBound)
        self.minimumSegmentMilliseconds = min(max(minimumSegmentMilliseconds, self.partTargetMilliseconds), 30_000)
        self.windowSegments = min(max(windowSegments, Self.minimumWindowSegments), 100)
        self.maximumWindowBytes = max(maximumWindowBytes, 1 << 20)
    }

    /// PART-HOLD-BACK: three part targets, the RFC 8216bis §4.4.3.8 recommendation (at least two are required).
    public var partHoldBackMilliseconds: Int { partTargetMilliseconds * 3 }

    /// RFC 8216bis §6.2.5.2: the Advance Part Limit is 3 ÷ PART-TARGET when it is under a second, else 3.
    public var advancePartLimit: Int {
        partTargetMilliseconds < 1000 ? (3000 + partTargetMilliseconds - 1) / partTargetMilliseconds : 3
    }
}
