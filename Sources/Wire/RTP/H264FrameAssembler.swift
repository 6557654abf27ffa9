/// Rebuilds H.264 access units from a received RTP stream (RFC 6184, packetization mode 1), without I/O: the
/// receiving side of a WHIP ingest.
///
/// Packets come in arrival order. An access unit is the NAL units of one RTP timestamp; it is complete at the packet
/// with the marker bit (RFC 6184 §5.1), or when a packet of a later timestamp arrives first (a lost marker). A gap
/// in sequence numbers (loss, or reordering this assembler does not undo) breaks the frame being built, and every
/// frame after it until an IDR: a decoder cannot use a frame that refers to a lost one, so they are dropped and
/// counted (``droppedFrames``) rather than passed on damaged. Bounded: a frame past ``maximumFrameSize`` bytes is
/// dropped the same way.
public struct H264FrameAssembler: Sendable {
    /// The largest access unit kept (a 4K IDR at a high bitrate is well under this); larger ones are dropped.
    public static let maximumFrameSize = 8 * 1024 * 1024

    /// One access unit.
    public struct Frame: Sendable, Hashable {
        /// Its NAL units, without start codes or length prefixes (SPS and PPS included when they were sent).
        public var nalUnits: [[UInt8]]
        /// The RTP timestamp extended past 32-bit wraparound (90 kHz), from the stream's first packet.
        public var timestamp: Int64
        /// Whether it holds an IDR slice (NAL unit type 5): a decoder may start here.
        public var isKeyframe: Bool

        /// Creates a frame.
        public init(nalUnits: [[UInt8]], timestamp: Int64, isKeyframe: Bool) {
            self.nalUnits = nalUnits
            self.timestamp = timestamp
            self.isKeyframe = isKeyframe
        }
    }

    private var depacketizer = H264Depacketizer()
    private var units: [[UInt8]] = []
    private var size = 0
    private var timestamp: Int64?
    private var broken = false
    private var waitingForKeyframe = true
    private var expectedSequence: UInt16?
    private var lastRTPTimestamp: UInt32?
    private var extendedTimestamp: Int64 = 0

    /// Whether a frame was dropped and no keyframe has come out since: the time to ask the sender for one
    /// (``KeyframeRequests``). Not before the first frame: a sender starts with a keyframe.
    public private(set) var needsKeyframe = false
    /// Frames given out.
    public private(set) var frames = 0
    /// Frames dropped: damaged by a gap, waiting for a keyframe after one, oversized, or undecodable payloads.
    public private(set) var droppedFrames = 0

    /// Creates an assembler that waits for the first keyframe.
    public init() {}

    /// Takes the next packet.
    /// - Parameter packet: a decoded RTP packet of the H.264 payload type.
    /// - Returns: the frames it completes (at most two: one cut short by a new timestamp, and this one).
    public mutating func push(_ packet: RTPPacket) -> [Frame] {
        var completed: [Frame] = []
        let extended = extend(packet.timestamp)
        if let expected = expectedSequence, packet.sequenceNumber != expected {
            // Something between the last packet and this one is missing: the frame being built lost its tail (or
            // this is a new frame that lost its head), and later frames may refer to what was lost.
            broken = true
            waitingForKeyframe = true
        }
        expectedSequence = packet.sequenceNumber &+ 1
        if let current = timestamp, current != extended {
            // A later timestamp before the marker: the previous frame ends here (dropped if the gap broke it).
            if let frame = finish() { completed.append(frame) }
        }
        if timestamp == nil {
            timestamp = extended
        }
        do {
            for unit in try depacketizer.push(packet.payload) where !broken {
                size += unit.count
                guard size <= Self.maximumFrameSize else {
                    broken = true
                    break
                }
                units.append(unit)
            }
        } catch {
            broken = true
            depacketizer = H264Depacketizer()
        }
        if packet.marker, let frame = finish() { completed.append(frame) }
        return completed
    }

    /// Ends the frame being built and gives it out if it is whole and decodable.
    private mutating func finish() -> Frame? {
        defer {
            units = []
            size = 0
            timestamp = nil
            broken = false
        }
        guard let timestamp else { return nil }
        if broken {
            droppedFrames += 1
            needsKeyframe = true
            return nil
        }
        guard !units.isEmpty else { return nil }
        let isKeyframe = units.contains { ($0.first ?? 0) & 0x1F == 5 }
        if waitingForKeyframe {
            guard isKeyframe else {
                droppedFrames += 1
                needsKeyframe = true
                return nil
            }
            waitingForKeyframe = false
            needsKeyframe = false
        }
        frames += 1
        return Frame(nalUnits: units, timestamp: timestamp, isKeyframe: isKeyframe)
    }

    /// Extends a 32-bit RTP timestamp by the signed distance from the previous one (RFC 3550 §5.1 wraps).
    private mutating func extend(_ value: UInt32) -> Int64 {
        if let last = lastRTPTimestamp {
            extendedTimestamp += Int64(Int32(bitPattern: value &- last))
        }
        lastRTPTimestamp = value
        return extendedTimestamp
    }
}
