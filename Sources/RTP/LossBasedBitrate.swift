/// A sender-side bandwidth estimate from RTCP receiver reports: the loss-based controller of Google Congestion
/// Control (draft-ietf-rmcat-gcc-02 §6), capped by the receiver's REMB when it sends one.
///
/// Over 10 % loss the estimate falls by half the loss fraction; under 2 % it grows by 5 % per report (reports come
/// about once a second); in between it holds. A pure value fed one report at a time.
public struct LossBasedBitrate: Sendable {
    /// Loss above which the estimate decreases (§6: 10 %).
    public static let decreaseThreshold = 0.10
    /// Loss below which the estimate increases (§6: 2 %).
    public static let increaseThreshold = 0.02
    /// Growth per clean report.
    public static let increaseFactor = 1.05

    /// The ceiling: the settings' bitrate.
    public let maximumKbps: Int
    /// The floor.
    public let minimumKbps: Int
    /// The current estimate.
    public private(set) var estimateKbps: Int
    /// The receiver's REMB cap, if it sent one.
    public private(set) var receiverCapKbps: Int?

    /// Creates an estimator starting at the ceiling.
    /// - Parameters:
    ///   - maximumKbps: the settings' video bitrate.
    ///   - minimumKbps: the floor (default a fifth of the maximum, at least 150).
    public init(maximumKbps: Int, minimumKbps: Int? = nil) {
        self.maximumKbps = max(1, maximumKbps)
        self.minimumKbps = min(self.maximumKbps, max(1, minimumKbps ?? max(150, maximumKbps / 5)))
        self.estimateKbps = self.maximumKbps
    }

    /// Takes a receiver report's loss fraction.
    /// - Parameter lossRatio: fraction lost since the previous report, 0...1.
    /// - Returns: the new estimate in kbit/s.
    @discardableResult
    public mutating func report(lossRatio: Double) -> Int {
        let loss = min(max(lossRatio, 0), 1)
        var estimate = Double(estimateKbps)
        if loss > Self.decreaseThreshold {
            estimate *= 1 - 0.5 * loss
        } else if loss < Self.increaseThreshold {
            estimate = max(estimate * Self.increaseFactor, estimate + 1)
        }
        var ceiling = maximumKbps
        if let receiverCapKbps { ceiling = min(ceiling, max(receiverCapKbps, minimumKbps)) }
        estimateKbps = min(ceiling, max(minimumKbps, Int(estimate.rounded())))
        return estimateKbps
    }

    /// Takes the receiver's REMB.
    /// - Parameter bitsPerSecond: the receiver's estimate.
    public mutating func receiverEstimate(bitsPerSecond: UInt64) {
        receiverCapKbps = Int(clamping: bitsPerSecond / 1000)
        if let receiverCapKbps { estimateKbps = min(estimateKbps, max(receiverCapKbps, minimumKbps)) }
    }
}
