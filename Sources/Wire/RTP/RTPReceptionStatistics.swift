/// What a receiver says of one RTP source in its receiver reports (RFC 3550 §6.4.1, the algorithms of its
/// appendix A.3 and A.8): the extended highest sequence number, packets lost in all and since the last report,
/// interarrival jitter, and the last sender report's time with the delay since. A sender's loss-based bandwidth
/// estimate (Chrome's, ours) reads the loss fraction and round trip from these; without them it never learns the
/// path is clean.
///
/// Pure: the caller passes arrival times.
public struct RTPReceptionStatistics: Sendable {
    /// The source reported on.
    public let ssrc: UInt32
    /// The RTP clock rate (90,000 for video, 48,000 for Opus), for the jitter.
    public let clockRate: Int
    private var baseSequence: UInt32 = 0
    private var highestSequence: UInt16 = 0
    private var cycles: UInt32 = 0
    private var started = false
    /// Packets received, retransmissions and duplicates included (RFC 3550 A.3 counts them so).
    private var received: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    /// Jitter in timestamp units, times 16 (A.8's integer form).
    private var scaledJitter: Int64 = 0
    private var lastTransit: Int64?
    private var lastSenderReport: (middle: UInt32, arrived: Duration)?

    /// Creates statistics for `ssrc`.
    public init(ssrc: UInt32, clockRate: Int) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    /// Takes a packet: its sequence number, RTP timestamp and arrival time.
    public mutating func observe(sequence: UInt16, timestamp: UInt32, arrival: Duration) {
        if !started {
            started = true
            baseSequence = UInt32(sequence)
            highestSequence = sequence
        } else {
            let step = Int16(bitPattern: sequence &- highestSequence)
            if step > 0 {
                if sequence < highestSequence { cycles &+= 1 << 16 }
                highestSequence = sequence
            }
        }
        received += 1
        // A.8: the difference in transit time, in timestamp units, smoothed by 1/16. Reordered and resent packets
        // count too, as the RFC's receivers do.
        let arrivalUnits = Int64(arrival.components.seconds) * Int64(clockRate)
            + Int64(arrival.components.attoseconds / 1_000_000_000) * Int64(clockRate) / 1_000_000_000
        let transit = arrivalUnits - Int64(timestamp)
        if let last = lastTransit {
            let difference = abs(transit - last)
            scaledJitter += difference - (scaledJitter + 8) / 16
        }
        lastTransit = transit
    }

    /// Takes a sender report from the source: the middle 32 bits of its NTP time go back in the next reports.
    public mutating func senderReport(ntpTimestamp: UInt64, arrival: Duration) {
        lastSenderReport = (UInt32(truncatingIfNeeded: ntpTimestamp >> 16), arrival)
    }

    /// Whether a packet has come: before it there is nothing to report.
    public var hasReceived: Bool { started }

    /// The report block now, and the start of the next interval (the fraction lost is since the last call).
    public mutating func report(now: Duration) -> RTCPReportBlock {
        let extendedHighest = cycles &+ UInt32(highestSequence)
        let expected = Int64(extendedHighest) - Int64(baseSequence) + 1
        let lost = expected - received
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction = expectedInterval <= 0 || lostInterval <= 0 ? 0 : (lostInterval << 8) / expectedInterval
        var delay: UInt32 = 0
        if let sent = lastSenderReport {
            let elapsed = now - sent.arrived
            let units = Int64(elapsed.components.seconds) * 65_536
                + Int64(elapsed.components.attoseconds / 1_000_000_000) * 65_536 / 1_000_000_000
            delay = UInt32(clamping: max(0, units))
        }
        return RTCPReportBlock(ssrc: ssrc, fractionLost: UInt8(clamping: fraction),
                               cumulativeLost: Int32(clamping: min(max(lost, -0x80_0000), 0x7F_FFFF)),
                               highestSequence: extendedHighest, jitter: UInt32(clamping: scaledJitter >> 4),
                               lastSenderReport: lastSenderReport?.middle ?? 0, delaySinceLastSenderReport: delay)
    }
}
