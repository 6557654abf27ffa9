/// Adaptive bitrate: the encoder's video bitrate follows the measured throughput down when an output's queue grows,
/// and climbs back gradually once the link has kept up for a while.
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

        /// Creates a configuration.
        /// - Parameters:
        ///   - targetKbps: the settings' video bitrate.
        ///   - minimumKbps: the floor (default: a fifth of the target, at least 200).
        ///   - congestedQueueMilliseconds: congestion threshold (default 300).
        ///   - clearQueueMilliseconds: recovery threshold (default 100).
        ///   - throughputShare: share of the measured throughput used when congested (default 0.8).
        ///   - samplesBeforeIncrease: clear samples before stepping up (default 5).
        ///   - increaseFraction: step up size as a fraction of the target (default 0.1).
        public init(targetKbps: Int, minimumKbps: Int? = nil, congestedQueueMilliseconds: Int64 = 300,
                    clearQueueMilliseconds: Int64 = 100, throughputShare: Double = 0.8, samplesBeforeIncrease: Int = 5,
                    increaseFraction: Double = 0.1) {
            self.targetKbps = max(1, targetKbps)
            self.minimumKbps = min(self.targetKbps, max(1, minimumKbps ?? max(200, targetKbps / 5)))
            self.congestedQueueMilliseconds = congestedQueueMilliseconds
            self.clearQueueMilliseconds = min(clearQueueMilliseconds, congestedQueueMilliseconds)
            self.throughputShare = min(max(throughputShare, 0.1), 1)
            self.samplesBeforeIncrease = max(1, samplesBeforeIncrease)
            self.increaseFraction = min(max(increaseFraction, 0.01), 1)
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

        /// Creates a sample.
        public init(queueMilliseconds: Int64, throughputKbps: Int, audioKbps: Int) {
            self.queueMilliseconds = queueMilliseconds
            self.throughputKbps = throughputKbps
            self.audioKbps = audioKbps
        }
    }

    /// The tuning.
    public let configuration: Configuration
    /// The bitrate the encoder should be running at.
    public private(set) var currentKbps: Int
    private var clearSamples = 0
    private var previousQueueMilliseconds: Int64 = 0

    /// Starts at the target bitrate.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.currentKbps = configuration.targetKbps
    }

    /// Takes one interval's measurements.
    /// - Parameter sample: the measurements.
    /// - Returns: the new bitrate when it changed, nil when the encoder should keep its bitrate.
    public mutating func update(_ sample: Sample) -> Int? {
        defer { previousQueueMilliseconds = sample.queueMilliseconds }
        let old = currentKbps
        if sample.queueMilliseconds >= configuration.congestedQueueMilliseconds,
           sample.queueMilliseconds >= previousQueueMilliseconds {
            clearSamples = 0
            let videoThroughput = max(0, sample.throughputKbps - sample.audioKbps)
            let fitted = Int(Double(videoThroughput) * configuration.throughputShare)
            // Never up while congested; at least a 10 % cut so a queue that still grows keeps shrinking the rate.
            currentKbps = max(configuration.minimumKbps, min(fitted, currentKbps * 9 / 10))
        } else if sample.queueMilliseconds <= configuration.clearQueueMilliseconds {
            clearSamples += 1
            if clearSamples >= configuration.samplesBeforeIncrease, currentKbps < configuration.targetKbps {
                let step = max(1, Int(Double(configuration.targetKbps) * configuration.increaseFraction))
                currentKbps = min(configuration.targetKbps, currentKbps + step)
                clearSamples = configuration.samplesBeforeIncrease - 1
            }
        } else {
            clearSamples = 0
        }
        return currentKbps == old ? nil : currentKbps
    }
}
