/// A sender-side bandwidth estimate from the loss a receiver reports (RTCP receiver reports, and the NACKs that
/// show losses a retransmission later hid from the report), capped by the receiver's REMB when it sends one.
///
/// The shape is Google Congestion Control's loss-based controller (draft-ietf-rmcat-gcc-02 §6): decrease, hold or
/// increase by the loss fraction of each report (about one a second). Its thresholds (10 % and 2 %) are for a
/// path where loss is the only signal left after delay-based control; this publisher has no delay-based
/// controller, so it reacts earlier: over 2 % loss the estimate falls by the loss fraction, under 1 % it grows by
/// 5 % per report, in between it holds. A pure value fed one report at a time.
public struct LossBasedBitrate: Sendable {
    /// Loss above which the estimate decreases.
    public static let decreaseThreshold = 0.02
    /// Loss below which the estimate increases.
    public static let increaseThreshold = 0.01
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
            estimate *= 1 - loss
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
