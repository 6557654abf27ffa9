/// Puts a received RTP stream back in sequence order, holding the packets after a gap for a while so that a
/// retransmission (asked for by ``RTPLossTracker``'s NACKs) or a reordered packet can fill it, before a depacketizer
/// that treats any gap as a loss (``H264FrameAssembler``) sees them.
///
/// In order, a packet passes at once; nothing is delayed while nothing is missing. After a gap the packets that
/// follow are held until the gap fills or the first of them has waited ``maximumDelay``; then the gap is given up
/// (counted in ``skipped``) and what follows it passes. A packet that comes after its place was passed or given up,
/// or twice, is dropped (counted in ``late``). A packet more than ``maximumHeld`` sequence numbers past the gap
/// (a burst longer than the bound, a new origin, a long outage), or as far behind, passes what is held and starts
/// afresh there: at most ``maximumHeld`` packets are ever held.
///
/// Pure: the caller passes `now`. Time moves only when a packet comes: held packets wait for the next one at most.
public struct RTPReorderBuffer: Sendable {
    /// How long a packet after a gap is held for the gap to fill.
    public let maximumDelay: Duration
    /// The most packets held: how far past a gap a packet may be and still wait for it.
    public let maximumHeld: Int
    /// The sequence number passed next.
    private var next: UInt16?
    /// Packets held after a gap, by sequence number, with when each came.
    private var held: [UInt16: (packet: RTPPacket, arrived: Duration)] = [:]
    /// Sequence numbers given up: the gap did not fill in time.
    public private(set) var skipped = 0
    /// Packets dropped because they came after their place was passed or given up, or came twice.
    public private(set) var late = 0
    /// Missing packets that came in time (a retransmission, or reordered), while later ones were held.
    public private(set) var filled = 0
    /// The highest sequence number seen.
    private var highest: UInt16 = 0

    /// Creates a buffer. The default delay covers three NACKs 40 ms apart and the round trip of the last.
    public init(maximumDelay: Duration = .milliseconds(200), maximumHeld: Int = 512) {
        self.maximumDelay = maximumDelay
        self.maximumHeld = maximumHeld
    }

    /// How many packets are held now.
    public var heldCount: Int { held.count }

    /// Takes the next packet in arrival order.
    /// - Returns: the packets that can pass now, in sequence order (none while a gap before them is open).
    public mutating func push(_ packet: RTPPacket, now: Duration) -> [RTPPacket] {
        let sequence = packet.sequenceNumber
        guard let expected = next else {
            next = sequence &+ 1
            highest = sequence
            return [packet]
        }
        let distance = Int(Int16(bitPattern: sequence &- expected))
        if distance < 0 && distance >= -maximumHeld || held[sequence] != nil {
            late += 1
            return []
        }
        if distance == 0, held.isEmpty {
            next = sequence &+ 1
            highest = sequence
            return [packet]
        }
        var passed: [RTPPacket] = []
        if distance > maximumHeld || distance < 0 {
            // Too far to wait for what is between: pass what is held, in order, and start again here.
            passed = flush()
            next = sequence
            highest = sequence
        } else if Int16(bitPattern: sequence &- highest) < 0 {
            filled += 1
        } else {
            highest = sequence
        }
        held[sequence] = (packet, now)
        passed += release()
        while let first = firstHeld(), now - first.arrived >= maximumDelay {
            skipped += Int(first.sequence &- (next ?? first.sequence))
            next = first.sequence
            passed += release()
        }
        return passed
    }

    /// Passes the held packets from ``next`` on while they follow each other.
    private mutating func release() -> [RTPPacket] {
        var passed: [RTPPacket] = []
        while let expected = next, let entry = held.removeValue(forKey: expected) {
            passed.append(entry.packet)
            next = expected &+ 1
        }
        return passed
    }

    /// Passes everything held, in sequence order, skipping the gaps.
    private mutating func flush() -> [RTPPacket] {
        guard let expected = next else { return [] }
        let ordered = held.keys.sorted { $0 &- expected < $1 &- expected }
        var passed: [RTPPacket] = []
        for sequence in ordered {
            if let entry = held.removeValue(forKey: sequence) {
                skipped += Int(sequence &- (next ?? sequence))
                passed.append(entry.packet)
                next = sequence &+ 1
            }
        }
        return passed
    }

    /// The held packet nearest after ``next``, and when the earliest held packet came (the gap is known since).
    private func firstHeld() -> (sequence: UInt16, arrived: Duration)? {
        guard let expected = next, !held.isEmpty else { return nil }
        var nearest: UInt16?
        var earliest: Duration?
        for (sequence, entry) in held {
            if nearest.map({ sequence &- expected < $0 &- expected }) ?? true { nearest = sequence }
            if earliest.map({ entry.arrived < $0 }) ?? true { earliest = entry.arrived }
        }
        guard let nearest, let earliest else { return nil }
        return (nearest, earliest)
    }
}
