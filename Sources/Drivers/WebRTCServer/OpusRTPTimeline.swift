/// Where each Opus RTP packet of a WHIP session falls on the session's continuous 48 kHz sample timeline: the pure
/// part of the Opus → AAC transcode. RTP timestamps in, what to conceal, skip or drop out.
///
/// RFC 7587 §4.1: one RTP payload is one Opus packet and the RTP clock is 48 kHz. The timeline counts samples
/// decoded (or concealed) since the first packet, so that the AAC encoder, which counts samples in, stays on the
/// RTP clock. A packet after a gap has the gap concealed first (libopus' PLC, which fades to silence) up to
/// ``maximumConcealedSamples``; a longer gap (a muted or stalled sender) is skipped: the timeline jumps by it
/// instead of encoding seconds of silence, so no buffer grows with a gap. A packet at or before the expected
/// timestamp (a duplicate, or reordered behind a later one already decoded) is dropped and counted: there is no
/// jitter buffer, so reordering costs that packet's 20 ms, concealed by the one before.
struct OpusRTPTimeline: Equatable {
    /// RFC 7587 §4.1: Opus's RTP clock rate.
    static let clockRate: Int64 = 48_000
    /// The longest gap concealed as audio: 1 s. Longer gaps move the timeline without samples.
    static let maximumConcealedSamples: Int64 = 48_000

    /// What to do with one packet.
    enum Step: Equatable {
        /// Conceal `conceal` samples (the gap before it), add `skip` samples to the timeline without audio, then
        /// decode the packet and report its length with ``advance(by:)``.
        case decode(conceal: Int64, skip: Int64)
        /// A duplicate or late packet: drop it.
        case drop
    }

    /// The next expected RTP timestamp, extended past 32-bit wraps; nil before the first packet.
    private var expected: Int64?
    /// Samples on the timeline so far: decoded, concealed and skipped.
    private(set) var samples: Int64 = 0
    /// Samples skipped (long gaps), included in ``samples``.
    private(set) var skipped: Int64 = 0
    /// Packets dropped as duplicates or late.
    private(set) var dropped = 0

    /// Places a packet by its RTP timestamp.
    /// - Parameter timestamp: the packet's RTP timestamp.
    /// - Returns: what to do before decoding it, or `.drop`.
    mutating func place(timestamp: UInt32) -> Step {
        guard let expected else {
            self.expected = Int64(timestamp)
            return .decode(conceal: 0, skip: 0)
        }
        // The 32-bit distance from the expected timestamp, signed: a wrap is a small step forward.
        let distance = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: expected)))
        guard distance >= 0 else {
            dropped += 1
            return .drop
        }
        self.expected = expected + distance
        let conceal = distance <= Self.maximumConcealedSamples ? distance : 0
        let skip = distance - conceal
        samples += distance
        skipped += skip
        return .decode(conceal: conceal, skip: skip)
    }

    /// Counts the decoded packet's samples (per channel) onto the timeline.
    /// - Parameter decoded: samples per channel the packet decoded to (960 for 20 ms).
    mutating func advance(by decoded: Int) {
        guard let expected else { return }
        self.expected = expected + Int64(decoded)
        samples += Int64(decoded)
    }

    /// Milliseconds from the session's first sample to `sample` on this timeline, rounded down (negative before).
    /// - Parameter sample: a sample index, e.g. an AAC packet's pts.
    static func milliseconds(atSample sample: Int64) -> Int64 {
        let scaled = sample * 1000
        return scaled >= 0 ? scaled / clockRate : -((-scaled + clockRate - 1) / clockRate)
    }
}
