/// Spreads packets over time (a leaky bucket) so that a keyframe's burst does not overflow a router's queue:
/// what libwebrtc's pacer does, without its probing.
///
/// A pure value: packets and `now` in, packets due out. Audio and retransmissions go first. The queue is bounded in
/// time: packets that waited longer than ``maximumQueueDelay`` are dropped (the receiver NACKs what it misses) and
/// counted in ``dropped``.
public struct Pacer: Sendable {
    /// Which queue a packet joins.
    public enum Priority: Sendable, Hashable {
        /// Audio, RTCP answers and retransmissions: sent before any queued video.
        case high
        /// Video.
        case normal
    }

    /// libwebrtc paces at 2.5 times the target bitrate, so a keyframe leaves within a few frames.
    public static let pacingFactor = 2.5

    /// The longest a packet waits before it is dropped.
    public let maximumQueueDelay: Duration
    /// The most bytes sent at once after the line was idle (the bucket's depth).
    public let burstBytes: Int
    /// Packets dropped because they waited too long.
    public private(set) var dropped = 0

    private var bytesPerSecond: Double
    private var budget: Double
    private var lastRefill: Duration?
    private var high: [(bytes: [UInt8], queuedAt: Duration)] = []
    private var normal: [(bytes: [UInt8], queuedAt: Duration)] = []
    private var highHead = 0
    private var normalHead = 0

    /// Creates a pacer.
    /// - Parameters:
    ///   - bitsPerSecond: the media's target bitrate (the pacer sends at ``pacingFactor`` times it).
    ///   - burstBytes: the bucket's depth (default 10 000 bytes, about 8 packets).
    ///   - maximumQueueDelay: how long a packet may wait (default 2 s).
    public init(bitsPerSecond: Int, burstBytes: Int = 10_000, maximumQueueDelay: Duration = .seconds(2)) {
        self.bytesPerSecond = Double(max(bitsPerSecond, 8_000)) * Self.pacingFactor / 8
        self.burstBytes = max(burstBytes, 1500)
        self.budget = Double(max(burstBytes, 1500))
        self.maximumQueueDelay = maximumQueueDelay
    }

    /// Changes the target bitrate.
    public mutating func setRate(bitsPerSecond: Int) {
        bytesPerSecond = Double(max(bitsPerSecond, 8_000)) * Self.pacingFactor / 8
    }

    /// Packets waiting.
    public var queuedPackets: Int { high.count - highHead + normal.count - normalHead }

    /// Queues a packet.
    public mutating func enqueue(_ bytes: [UInt8], priority: Priority, now: Duration) {
        switch priority {
        case .high: high.append((bytes, now))
        case .normal: normal.append((bytes, now))
        }
    }

    /// The packets due now, in sending order.
    public mutating func dequeue(now: Duration) -> [[UInt8]] {
        refill(now: now)
        dropStale(now: now)
        var due: [[UInt8]] = []
        while budget > 0 {
            if highHead < high.count {
                due.append(high[highHead].bytes)
                budget -= Double(high[highHead].bytes.count)
                highHead += 1
            } else if normalHead < normal.count {
                due.append(normal[normalHead].bytes)
                budget -= Double(normal[normalHead].bytes.count)
                normalHead += 1
            } else {
                break
            }
        }
        compact()
        return due
    }

    /// When the next queued packet may go, or nil when the queue is empty.
    public func nextSendTime(now: Duration) -> Duration? {
        guard queuedPackets > 0 else { return nil }
        guard budget <= 0 else { return now }
        return (lastRefill ?? now) + .seconds(-budget / bytesPerSecond)
    }

    private mutating func refill(now: Duration) {
        if let lastRefill {
            let elapsed = Double((now - lastRefill).components.attoseconds) / 1e18
                + Double((now - lastRefill).components.seconds)
            budget = min(Double(burstBytes), budget + max(0, elapsed) * bytesPerSecond)
        }
        lastRefill = now
    }

    private mutating func dropStale(now: Duration) {
        while normalHead < normal.count, now - normal[normalHead].queuedAt > maximumQueueDelay {
            normalHead += 1
            dropped += 1
        }
        while highHead < high.count, now - high[highHead].queuedAt > maximumQueueDelay {
            highHead += 1
            dropped += 1
        }
    }

    private mutating func compact() {
        if highHead > 256 || highHead == high.count {
            high.removeFirst(highHead)
            highHead = 0
        }
        if normalHead > 256 || normalHead == normal.count {
            normal.removeFirst(normalHead)
            normalHead = 0
        }
    }
}
