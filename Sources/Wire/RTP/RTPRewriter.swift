/// One subscriber's copy of a forwarded track: rewrites a publisher's RTP packets to the subscriber's SSRC, payload
/// type, sequence numbers and timestamps, so that the subscriber sees one continuous stream across a publisher's
/// reconnect (a new SSRC with new random sequence and timestamp origins) and across packets it was not sent (a
/// skip to the next keyframe), with no sequence gap for its jitter buffer to wait on or NACK.
///
/// Pure: the forwarder passes each packet it sends and `now`; the header is rewritten in place, payload, CSRCs and
/// extensions untouched.
public struct RTPRewriter: Sendable {
    /// The SSRC the subscriber sees.
    public let ssrc: UInt32
    /// The payload type the subscriber's offer chose for the track.
    public let payloadType: UInt8
    /// The track's clock (90 000 for H.264, 48 000 for Opus): spaces timestamps across a publisher's reconnect.
    public let clockRate: Int
    private var source: UInt32?
    private var sequenceOffset: UInt16
    private var timestampOffset: UInt32
    /// The last packet sent: its sequence number and timestamp as rewritten, and when.
    private var last: (sequence: UInt16, timestamp: UInt32, at: Duration)?
    /// The first sequence number sent since the offsets last changed: NACKs before it cannot be mapped back.
    private var epochStart: UInt16
    private var skipped = false
    private var retiming = false
    /// Packets rewritten.
    public private(set) var packets = 0

    /// Creates a rewriter whose first packet gets `firstSequence` and `firstTimestamp` (random, RFC 3550 §5.1).
    public init(ssrc: UInt32, payloadType: UInt8, clockRate: Int, firstSequence: UInt16, firstTimestamp: UInt32) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.clockRate = clockRate
        sequenceOffset = firstSequence
        timestampOffset = firstTimestamp
        epochStart = firstSequence
    }

    /// Says that packets of the current source were left out: the next one rewritten follows the last one sent
    /// without a sequence gap. Its timestamp keeps its distance from the source's (the picture's timing holds: the
    /// subscriber waited for what was left out), or with `retime`, follows the last one sent by the wall time between
    /// (what was sent last was old: a late joiner's first keyframe, up to the keyframe interval behind the packets
    /// after it, which would otherwise come that much "early" and be held back).
    public mutating func skip(retime: Bool = false) {
        skipped = true
        retiming = retime
    }

    /// Rewrites a packet of the publisher's for this subscriber, or nil for bytes that are not an RTP packet.
    public mutating func rewrite(_ packet: [UInt8], now: Duration) -> [UInt8]? {
        guard packet.count >= RTPPacket.headerSize, packet[0] >> 6 == RTPPacket.version else { return nil }
        let sequence = RTPPacket.sequenceNumber(of: packet)
        let timestamp = RTPPacket.timestamp(of: packet)
        let sourceSSRC = RTPPacket.ssrc(of: packet)
        if let last {
            // The timestamp after the last one sent by the wall time between (at least 1).
            let elapsed = now - last.at
            let ticks = UInt32(truncatingIfNeeded: max(1, Int(elapsed / .milliseconds(1)) * clockRate / 1000))
            if sourceSSRC != source {
                // A new publisher (or the same one reconnected): its origins are random, so the offsets are drawn
                // again from where the subscriber is.
                timestampOffset = last.timestamp &+ ticks &- timestamp
                sequenceOffset = last.sequence &+ 1 &- sequence
                epochStart = last.sequence &+ 1
            } else if skipped {
                if retiming { timestampOffset = last.timestamp &+ ticks &- timestamp }
                sequenceOffset = last.sequence &+ 1 &- sequence
                epochStart = last.sequence &+ 1
            }
        } else {
            sequenceOffset = sequenceOffset &- sequence
            timestampOffset = timestampOffset &- timestamp
        }
        source = sourceSSRC
        skipped = false
        retiming = false
        let outSequence = sequence &+ sequenceOffset
        let outTimestamp = timestamp &+ timestampOffset
        var bytes = packet
        bytes[1] = bytes[1] & 0x80 | payloadType & 0x7f
        bytes[2] = UInt8(outSequence >> 8)
        bytes[3] = UInt8(outSequence & 0xff)
        bytes[4] = UInt8(outTimestamp >> 24)
        bytes[5] = UInt8(outTimestamp >> 16 & 0xff)
        bytes[6] = UInt8(outTimestamp >> 8 & 0xff)
        bytes[7] = UInt8(outTimestamp & 0xff)
        bytes[8] = UInt8(ssrc >> 24)
        bytes[9] = UInt8(ssrc >> 16 & 0xff)
        bytes[10] = UInt8(ssrc >> 8 & 0xff)
        bytes[11] = UInt8(ssrc & 0xff)
        // Reordered packets keep their place; `last` is the newest in sequence order.
        if let previous = last, Int16(bitPattern: outSequence &- previous.sequence) <= 0 {
            last = (previous.sequence, previous.timestamp, now)
        } else {
            last = (outSequence, outTimestamp, now)
        }
        packets += 1
        return bytes
    }

    /// The publisher's sequence number of a packet this subscriber asks again for (a NACK), or nil when it was sent
    /// before the offsets last changed (a reconnect or a skip), or never.
    public func sourceSequence(of sequence: UInt16) -> UInt16? {
        guard let last, sequence &- epochStart <= last.sequence &- epochStart else { return nil }
        return sequence &- sequenceOffset
    }
}
