/// Adaptive bitrate: the encoder's video bitrate follows the measured throughput down when an output's queue grows,
/// and climbs back gradually once the link has kept up for a while.
///
/// Congestion also measures the link: the video throughput at that moment is its capacity estimate. Climbing back
/// stops just under it (``Configuration/capacityShare``), so the bitrate settles there instead of climbing into the
/// same wall again and again; after ``Configuration/samplesBeforeProbe`` clear samples at that ceiling the estimate
/// grows by one step, so a link that got faster is found, slowly.
///
/// A link that carries nothing (a stalled ingest, a cable pulled: the queue grows and no byte is acknowledged) is not
/// a measurement of its capacity: the bitrate still steps down, but the estimate is left alone. After a reconnect
/// the caller says so with ``linkRestarted()``: the new connection may be a different path (or the same one, back
/// to health), so the old estimate is forgotten and the climb back runs up to the target.
///
/// A pure value fed one sample per interval (typically a second): no clock, no I/O. The caller applies the returned
/// bitrate with `VideoEncoder.setBitrate(kbps:)`.
public struct AdaptiveBitrate: Sendable {
    /// Tuning.
    public struct Configuration: Sendable, Hashable {
        /// The bitrate asked for in the settings: never exceeded.
        public var targetKbps: Int
        /// The floor: the bitrate never goes below it.
        public var minimumKbps: Int
        /// Queue span above which the link counts as congested.
        public var congestedQueueMilliseconds: Int64
        /// Queue span below which the link counts as keeping up.
        public var clearQueueMilliseconds: Int64
        /// Fraction of the measured video throughput used as the new bitrate when congested (headroom to drain).
        public var throughputShare: Double
        /// Clear samples in a row before the first step up after a step down.
        public var samplesBeforeIncrease: Int
        /// Each step up, as a fraction of the target.
        public var increaseFraction: Double
        /// The share of the estimated capacity the bitrate climbs back to (headroom for the link's variation).
        public var capacityShare: Double
        /// Clear samples at the ceiling before the capacity estimate is raised by one step (probing).
        public var samplesBeforeProbe: Int
        /// Samples after a step down before the next one: the queue still holds media encoded at the old bitrate
        /// (and the sockets' buffers ahead of it), which must drain before a lower bitrate can show.
        public var samplesBetweenDecreases: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - targetKbps: the settings' video bitrate.
        ///   - minimumKbps: the floor (default: a fifth of the target, at least 200).
        ///   - congestedQueueMilliseconds: congestion threshold (default 300).
        ///   - clearQueueMilliseconds: recovery threshold (default 100).
        ///   - throughputShare: share of the measured throughput used when congested (default 0.8).
        ///   - samplesBeforeIncrease: clear samples before stepping up (default 5).
        ///   - increaseFraction: step up size as a fraction of the target (default 0.1).
        ///   - capacityShare: share of the capacity estimate the climb stops at (default 0.9).
        ///   - samplesBeforeProbe: clear samples at the ceiling before probing one step higher (default 30).
        ///   - samplesBetweenDecreases: samples after a step down before another (default 3).
        public init(targetKbps: Int, minimumKbps: Int? = nil, congestedQueueMilliseconds: Int64 = 300,
                    clearQueueMilliseconds: Int64 = 100, throughputShare: Double = 0.8, samplesBeforeIncrease: Int = 5,
                    increaseFraction: Double = 0.1, capacityShare: Double = 0.9, samplesBeforeProbe: Int = 30,
                    samplesBetweenDecreases: Int = 3) {
            self.targetKbps = max(1, targetKbps)
            self.minimumKbps = min(self.targetKbps, max(1, minimumKbps ?? max(200, targetKbps / 5)))
            self.congestedQueueMilliseconds = congestedQueueMilliseconds
            self.clearQueueMilliseconds = min(clearQueueMilliseconds, congestedQueueMilliseconds)
            self.throughputShare = min(max(throughputShare, 0.1), 1)
            self.samplesBeforeIncrease = max(1, samplesBeforeIncrease)
            self.increaseFraction = min(max(increaseFraction, 0.01), 1)
            self.capacityShare = min(max(capacityShare, 0.1), 1)
            self.samplesBeforeProbe = max(1, samplesBeforeProbe)
            self.samplesBetweenDecreases = max(1, samplesBetweenDecreases)
        }
    }

    /// One interval's measurements from an output.
    public struct Sample: Sendable, Hashable {
        /// The output's queue span at the end of the interval, in milliseconds of media.
        public var queueMilliseconds: Int64
        /// Bits per second that actually left for the network during the interval, audio included, in kbit/s.
        public var throughputKbps: Int
        /// The audio bitrate in kbit/s (subtracted from the throughput to get video's share).
        public var audioKbps: Int
        /// Video frames the output's queue dropped during the interval: congestion even when the drop has just
        /// emptied the queue.
        public var droppedVideoFrames: Int

        /// Creates a sample.
        public init(queueMilliseconds: Int64, throughputKbps: Int, audioKbps: Int, droppedVideoFrames: Int = 0) {
            self.queueMilliseconds = queueMilliseconds
            self.throughputKbps = throughputKbps
            self.audioKbps = audioKbps
            self.droppedVideoFrames = droppedVideoFrames
        }
    }

    /// The tuning.
    public let configuration: Configuration
    /// The bitrate the encoder should be running at.
    public private(set) var currentKbps: Int
    /// The link's capacity for video as measured at the last congestion (raised by probing); nil before any.
    public private(set) var estimatedCapacityKbps: Int?
    private var clearSamples = 0
    private var samplesAtCeiling = 0
    private var samplesSinceDecrease = Int.max
    private var previousQueueMilliseconds: Int64 = 0

    /// Starts at the target bitrate.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.currentKbps = configuration.targetKbps
    }

    /// How high climbing back may go: just under the capacity estimate, never above the target.
    public var ceilingKbps: Int {
        guard let estimatedCapacityKbps else { return configuration.targetKbps }
        let ceiling = Int(Double(estimatedCapacityKbps) * configuration.capacityShare)
        return min(configuration.targetKbps, max(configuration.minimumKbps, ceiling))
    }

    /// The output reconnected: the capacity measured on the old connection no longer holds (it may have been
    /// measured while the link stalled), so it is forgotten; the bitrate stays where it is and climbs back to the
    /// target once the new connection keeps up.
    public mutating func linkRestarted() {
        estimatedCapacityKbps = nil
        clearSamples = 0
        samplesAtCeiling = 0
        samplesSinceDecrease = .max
        previousQueueMilliseconds = 0
    }

    private var step: Int { max(1, Int(Double(configuration.targetKbps) * configuration.increaseFraction)) }

    /// Takes one interval's measurements.
    /// - Parameter sample: the measurements.
    /// - Returns: the new bitrate when it changed, nil when the encoder should keep its bitrate.
    public mutating func update(_ sample: Sample) -> Int? {
        defer { previousQueueMilliseconds = sample.queueMilliseconds }
        let old = currentKbps
        samplesSinceDecrease = samplesSinceDecrease == .max ? .max : samplesSinceDecrease + 1
        let growing = sample.queueMilliseconds >= configuration.congestedQueueMilliseconds
            && sample.queueMilliseconds >= previousQueueMilliseconds
        if growing || sample.droppedVideoFrames > 0 {
            clearSamples = 0
            samplesAtCeiling = 0
            let videoThroughput = max(0, sample.throughputKbps - sample.audioKbps)
            // Nothing at all got through: a stall, not a capacity (see the type's notes).
            let measured = sample.throughputKbps > 0 ? videoThroughput : nil
            guard samplesSinceDecrease >= configuration.samplesBetweenDecreases else {
                // Still draining what was encoded before the last step down: the link is busy, so what it carries
                // now is its capacity (the first reading of an episode can run high while buffers on the way
                // fill; the later ones are steadier).
                if let measured { estimatedCapacityKbps = measured }
                return nil
            }
            if let measured { estimatedCapacityKbps = measured }
            let fitted = Int(Double(videoThroughput) * configuration.throughputShare)
            // Never up while congested; at least a 10 % cut so a queue that still grows keeps shrinking the rate.
            currentKbps = max(configuration.minimumKbps, min(fitted, currentKbps * 9 / 10))
            samplesSinceDecrease = 0
        } else if sample.queueMilliseconds <= configuration.clearQueueMilliseconds {
            clearSamples += 1
            guard clearSamples >= configuration.samplesBeforeIncrease, currentKbps < configuration.targetKbps else {
                return nil
            }
            if currentKbps < ceilingKbps {
                currentKbps = min(ceilingKbps, currentKbps + step)
                // One step per clear sample from here on, up to the ceiling.
                clearSamples = configuration.samplesBeforeIncrease - 1
            } else {
                samplesAtCeiling += 1
                if samplesAtCeiling >= configuration.samplesBeforeProbe, let estimate = estimatedCapacityKbps {
                    // Kept up at the ceiling for a long while: the link may have grown, so try one step more.
                    estimatedCapacityKbps = estimate + step
                    samplesAtCeiling = 0
                    currentKbps = min(ceilingKbps, currentKbps + step)
                }
            }
        } else {
            clearSamples = 0
        }
        return currentKbps == old ? nil : currentKbps
    }
}
