/// A track's recent packets by sequence number, to answer NACKs (RFC 4585 §6.2.1) from: bounded by age
/// (``window``, 1 s by default: a NACK for an older packet would come too late to play) and by count
/// (``maximumPackets``); the oldest packet is dropped first. Pure: `now` comes in.
public struct RTPPacketCache: Sendable {
    /// How long a packet is kept.
    public let window: Duration
    /// The most packets kept (a 1 s window of 8 Mbit/s video is about 700 packets of 1200 bytes).
    public let maximumPackets: Int
    private var packets: [UInt16: (bytes: [UInt8], at: Duration)] = [:]
    /// Arrival order: sequence numbers and when each came.
    private var order: [(sequence: UInt16, at: Duration)] = []
    private var head = 0

    /// Creates an empty cache.
    public init(window: Duration = .seconds(1), maximumPackets: Int = 2048) {
        precondition(maximumPackets > 0, "a packet cache holds at least one packet")
        self.window = window
        self.maximumPackets = maximumPackets
    }

    /// Packets held.
    public var count: Int { packets.count }

    /// Keeps a packet (an RTP packet as received, unprotected), forgetting what is past the window or the bound.
    public mutating func insert(_ packet: [UInt8], sequence: UInt16, now: Duration) {
        if packets.updateValue((packet, now), forKey: sequence) == nil {
            order.append((sequence, now))
        }
        expire(now: now)
        while packets.count > maximumPackets { dropOldest() }
    }

    /// The packet with that sequence number, if it is still held and within the window.
    public func packet(_ sequence: UInt16, now: Duration) -> [UInt8]? {
        guard let entry = packets[sequence], now - entry.at <= window else { return nil }
        return entry.bytes
    }

    /// Forgets every packet (the publisher changed).
    public mutating func removeAll() {
        packets.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        head = 0
    }

    private mutating func expire(now: Duration) {
        while head < order.count, now - order[head].at > window { dropOldest() }
    }

    private mutating func dropOldest() {
        guard head < order.count else { return }
        packets[order[head].sequence] = nil
        head += 1
        // Compacting once half the array is spent keeps appends and drops amortized O(1).
        if head >= 64, head * 2 >= order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
