/// A token bucket: up to `capacity` actions at once, refilled at `perSecond`. Time is the caller's, in
/// milliseconds.
struct TokenBucket: Sendable, Hashable {
    /// Bucket size and refill rate.
    struct Rate: Sendable, Hashable {
        var capacity: Double
        var perSecond: Double
    }

    private var tokens: Double
    private var updatedAt: Int64

    init(rate: Rate, now: Int64) {
        tokens = rate.capacity
        updatedAt = now
    }

    /// Takes one token.
    /// - Returns: nil when taken, else the milliseconds until one will be there.
    mutating func take(rate: Rate, now: Int64) -> Int64? {
        refill(rate: rate, now: now)
        guard tokens >= 1 else { return Int64(((1 - tokens) / rate.perSecond * 1000).rounded(.up)) }
        tokens -= 1
        return nil
    }

    /// Whether the bucket is full again (so forgetting it changes nothing).
    func isFull(rate: Rate, now: Int64) -> Bool {
        tokens + Double(max(0, now - updatedAt)) / 1000 * rate.perSecond >= rate.capacity
    }

    private mutating func refill(rate: Rate, now: Int64) {
        let elapsed = Double(max(0, now - updatedAt)) / 1000
        tokens = min(rate.capacity, tokens + elapsed * rate.perSecond)
        updatedAt = max(updatedAt, now)
    }
}

/// Buckets by sender key (a show's request and reaction rates).
extension Dictionary where Key == String, Value == TokenBucket {
    /// Takes one token from `key`'s bucket, a full one when it has none yet.
    /// - Returns: nil when taken, else the milliseconds until one will be there.
    mutating func take(_ key: String, rate: TokenBucket.Rate, now: Int64) -> Int64? {
        var bucket = self[key] ?? TokenBucket(rate: rate, now: now)
        defer { self[key] = bucket }
        return bucket.take(rate: rate, now: now)
    }

    /// Forgets `key`'s bucket if it is full again (a new one would be the same).
    mutating func forgetIfFull(_ key: String, rate: TokenBucket.Rate, now: Int64) {
        if let bucket = self[key], bucket.isFull(rate: rate, now: now) { self[key] = nil }
    }
}
