/// How many new visitor ids one address gets (issue 34 item 5): a visitor that throws its visitor token away and
/// joins again would otherwise escape slow mode, timeouts and bans with each new id. Each address has a bucket of
/// ``rate`` new ids; with it empty, a visitor from there without a good token becomes the one visitor derived from
/// the address (the same id every time), which moderation then follows. Visitors behind one address (a school's
/// NAT) get their own ids for the first few, then share one.
///
/// At most ``maximumAddresses`` buckets are kept: past it, the full ones (a new bucket would be the same) are
/// forgotten, then, if that is not enough, all of them; the bound is said in the docs, not silently held. Time is
/// the caller's, in milliseconds.
public struct VisitorAdmission: Sendable {
    /// New ids per address: three at once, then one a minute.
    static let rate = TokenBucket.Rate(capacity: 3, perSecond: 1.0 / 60)
    /// Addresses remembered.
    public static let maximumAddresses = 16_384

    private var buckets: [String: TokenBucket] = [:]

    /// Creates an admission with no address seen.
    public init() {}

    /// Whether a visitor from `address` (without its port) may have a new random id now; false: it is the visitor
    /// derived from the address.
    public mutating func mayMint(from address: String, now: Int64) -> Bool {
        if buckets[address] == nil, buckets.count >= Self.maximumAddresses {
            buckets = buckets.filter { !$0.value.isFull(rate: Self.rate, now: now) }
            if buckets.count >= Self.maximumAddresses { buckets.removeAll(keepingCapacity: true) }
        }
        return buckets.take(address, rate: Self.rate, now: now) == nil
    }

    /// Addresses remembered now.
    public var addressCount: Int { buckets.count }
}
