import Locking

/// Slows a client that keeps asking for what does not exist (guessing addresses): each client, by its address
/// without the port, has a bucket of ``burst`` misses refilled at ``perSecond``; with the bucket empty it must wait
/// (answer 429 with `Retry-After`) before anything it asks for is looked up. Players that retry a missing playlist
/// once a second never wait.
///
/// At most ``maximumClients`` are kept: past it, clients whose buckets have refilled are forgotten first, then
/// those that missed longest ago (a forgotten client starts again with a full bucket).
public final class MissLimiter: Sendable {
    /// Misses taken at once.
    public let burst: Int
    /// Misses given back per second.
    public let perSecond: Int
    /// Clients remembered.
    public let maximumClients: Int

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Locked([String: Bucket]())

    /// Creates a limiter.
    public init(burst: Int = 30, perSecond: Int = 2, maximumClients: Int = 4096) {
        self.burst = max(1, burst)
        self.perSecond = max(1, perSecond)
        self.maximumClients = max(1, maximumClients)
    }

    /// The client part of a remote address: "203.0.113.7" of "203.0.113.7:51234", "::1" of "[::1]:51234".
    public static func client(of remoteAddress: String) -> String {
        if remoteAddress.hasPrefix("["), let close = remoteAddress.firstIndex(of: "]") {
            return String(remoteAddress[remoteAddress.index(after: remoteAddress.startIndex)..<close])
        }
        guard let colon = remoteAddress.lastIndex(of: ":") else { return remoteAddress }
        return String(remoteAddress[..<colon])
    }

    /// Whether `client` may be answered now: nil, or the whole seconds until its next miss is allowed.
    public func retryAfter(_ client: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            guard let bucket = buckets[client] else { return nil }
            let tokens = refilled(bucket, now: now)
            guard tokens < 1 else { return nil }
            return max(1, Int(((1 - tokens) / Double(perSecond)).rounded(.up)))
        }
    }

    /// `client` asked for something that does not exist.
    public func missed(_ client: String, now: ContinuousClock.Instant = .now) {
        buckets.withLock { buckets in
            let tokens = buckets[client].map { refilled($0, now: now) } ?? Double(burst)
            buckets[client] = Bucket(tokens: max(0, tokens - 1), updated: now)
            if buckets.count > maximumClients { forget(&buckets, now: now) }
        }
    }

    /// Clients remembered now (for tests).
    public var clientCount: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant) -> Double {
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return min(Double(burst), bucket.tokens + seconds * Double(perSecond))
    }

    private func forget(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { refilled($0.value, now: now) < Double(burst) }
        guard buckets.count > maximumClients else { return }
        let oldestFirst = buckets.sorted { $0.value.updated < $1.value.updated }
        for (client, _) in oldestFirst.prefix(buckets.count - maximumClients) { buckets[client] = nil }
    }
}
