import ByteIO

/// A reception report block (RFC 3550 §6.4.1): how one source's packets are arriving at a receiver.
public struct RTCPReportBlock: Sendable, Hashable {
    /// The source reported on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256 units.
    public var fractionLost: UInt8
    /// Packets lost since the start (24-bit signed: duplicates can make it negative).
    public var cumulativeLost: Int32
    /// Extended highest sequence number received (cycles in the top 16 bits).
    public var highestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last sender report received (0 if none).
    public var lastSenderReport: UInt32
    /// Delay since that sender report, in 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    /// Creates a block.
    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, highestSequence: UInt32, jitter: UInt32,
                lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.highestSequence = highestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The fraction lost as 0...1.
    public var lossRatio: Double { Double(fractionLost) / 256 }

    static let size = 24

    init?(reading reader: inout ByteReader) {
        guard let ssrc = reader.readUInt32(), let lost = reader.readUInt32(), let highest = reader.readUInt32(),
              let jitter = reader.readUInt32(), let lsr = reader.readUInt32(), let dlsr = reader.readUInt32() else {
            return nil
        }
        // Sign-extend the 24-bit cumulative count.
        let cumulative = Int32(bitPattern: (lost & 0x00FF_FFFF) << 8) >> 8
        self.init(ssrc: ssrc, fractionLost: UInt8(truncatingIfNeeded: lost >> 24), cumulativeLost: cumulative,
                  highestSequence: highest, jitter: jitter, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    func write(to writer: inout ByteWriter) {
        writer.writeUInt32(ssrc)
        writer.writeUInt32(UInt32(fractionLost) << 24 | UInt32(bitPattern: cumulativeLost) & 0x00FF_FFFF)
        writer.writeUInt32(highestSequence)
        writer.writeUInt32(jitter)
        writer.writeUInt32(lastSenderReport)
        writer.writeUInt32(delaySinceLastSenderReport)
    }
}
