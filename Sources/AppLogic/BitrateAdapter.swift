import StreamCore

/// Adaptive bitrate for the extension (the `adaptiveBitrate` setting): when the send budget drops frames, the video
/// bitrate steps down by a quarter, at most once per `holdSeconds`; after `recoverySeconds` without a drop it climbs
/// back by a tenth per step, never above the chosen bitrate nor below `minimumKbps`. Integer arithmetic throughout.
public struct BitrateAdapter: Sendable, Hashable {
    /// The least time between two decreases, so one burst of drops counts once.
    public static let holdSeconds = 2.0
    /// The quiet time (no drop, no change) before each increase.
    public static let recoverySeconds = 5.0

    /// The chosen bitrate: the ceiling.
    public let targetKbps: Int
    /// The floor.
    public let minimumKbps: Int
    /// The bitrate the encoder should use now.
    public private(set) var currentKbps: Int
    private var lastChange: Double?
    private var lastCongestion: Double?

    /// Creates an adapter starting at the chosen bitrate.
    /// - Parameters:
    ///   - targetKbps: `StreamSettings.videoBitrateKbps`.
    ///   - minimumKbps: the floor (the settings' lowest accepted bitrate by default).
    public init(targetKbps: Int, minimumKbps: Int = StreamSettings.videoBitrateRangeKbps.lowerBound) {
        self.minimumKbps = max(1, min(minimumKbps, targetKbps))
        self.targetKbps = max(targetKbps, self.minimumKbps)
        currentKbps = self.targetKbps
    }

    /// The send budget dropped something.
    /// - Parameter seconds: now, on any monotonic clock.
    /// - Returns: the new bitrate when it changed.
    public mutating func congestion(atSeconds seconds: Double) -> Int? {
        lastCongestion = seconds
        if let lastChange, seconds - lastChange < Self.holdSeconds { return nil }
        let lowered = max(minimumKbps, currentKbps * 3 / 4)
        guard lowered != currentKbps else { return nil }
        currentKbps = lowered
        lastChange = seconds
        return lowered
    }

    /// Time passed (call once per frame).
    /// - Parameter seconds: now, on the same clock.
    /// - Returns: the new bitrate when it changed.
    public mutating func tick(atSeconds seconds: Double) -> Int? {
        guard currentKbps < targetKbps else { return nil }
        if let lastCongestion, seconds - lastCongestion < Self.recoverySeconds { return nil }
        if let lastChange, seconds - lastChange < Self.recoverySeconds { return nil }
        let raised = min(targetKbps, currentKbps + max(1, currentKbps / 10))
        currentKbps = raised
        lastChange = seconds
        return raised
    }
}
