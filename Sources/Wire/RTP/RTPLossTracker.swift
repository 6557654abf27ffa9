/// What a receiver misses of one RTP stream, and when to ask its sender for it again: generic NACKs (RFC 4585
/// §6.2.1). A gap in the sequence numbers is asked for at once (a packet only reordered then comes twice, which the
/// receivers drop), again every ``retryInterval`` while it is missing, at most ``maximumRequests`` times; then it is
/// given up. At most ``maximumMissing`` are tracked: a larger jump (a new origin, a long outage) starts afresh.
///
/// Pure: the caller passes each packet's sequence number and `now`.
public struct RTPLossTracker: Sendable {
    /// The most sequence numbers tracked as missing.
    public let maximumMissing: Int
    /// How long after asking for a packet it is asked for again.
    public let retryInterval: Duration
    /// How many times a packet is asked for.
    public let maximumRequests: Int
    private var highest: UInt16?
    /// Missing sequence numbers: how many times each was asked for, and when last.
    private var missing: [UInt16: (requests: Int, last: Duration)] = [:]
    /// Packets that came after they had been missed (a retransmission, or reordered).
    public private(set) var recovered = 0
    /// Packets given up after ``maximumRequests`` requests, or forgotten in a jump.
    public private(set) var abandoned = 0

    /// Creates a tracker.
    public init(maximumMissing: Int = 256, retryInterval: Duration = .milliseconds(40), maximumRequests: Int = 3) {
        self.maximumMissing = maximumMissing
        self.retryInterval = retryInterval
        self.maximumRequests = maximumRequests
    }

    /// How many are missing now.
    public var missingCount: Int { missing.count }

    /// Takes a packet's sequence number.
    public mutating func observe(_ sequence: UInt16) {
        guard let last = highest else {
            highest = sequence
            return
        }
        let distance = Int(Int16(bitPattern: sequence &- last))
        if distance > 0 {
            if distance - 1 > maximumMissing {
                abandoned += missing.count
                missing.removeAll()
                highest = sequence
            } else {
                for step in 1..<distance { missing[last &+ UInt16(step)] = (0, .zero) }
                highest = sequence
                while missing.count > maximumMissing, let oldest = oldest() {
                    missing[oldest] = nil
                    abandoned += 1
                }
            }
        } else if missing.removeValue(forKey: sequence) != nil {
            recovered += 1
        }
    }

    /// The sequence numbers to ask for now, in order: those never asked for, and those asked for at least
    /// ``retryInterval`` ago fewer than ``maximumRequests`` times. Those asked for that often are given up.
    public mutating func due(now: Duration) -> [UInt16] {
        guard !missing.isEmpty else { return [] }
        var asked: [UInt16] = []
        for (sequence, state) in missing where state.requests == 0 || now - state.last >= retryInterval {
            if state.requests >= maximumRequests {
                missing[sequence] = nil
                abandoned += 1
            } else {
                missing[sequence] = (state.requests + 1, now)
                asked.append(sequence)
            }
        }
        guard let highest else { return asked }
        // Oldest first: by distance behind the highest.
        return asked.sorted { highest &- $0 > highest &- $1 }
    }

    /// The missing sequence number furthest behind the highest.
    private func oldest() -> UInt16? {
        guard let highest else { return nil }
        return missing.keys.max { highest &- $0 < highest &- $1 }
    }
}
