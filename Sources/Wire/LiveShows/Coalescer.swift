/// Sends something at most once per period: at once when the last send is a period old, else at the end of the
/// period. Time is the caller's, in milliseconds.
struct Coalescer: Sendable, Hashable {
    let period: Int64
    private var lastSentAt: Int64?
    /// When a held change is due; nil when nothing waits.
    private(set) var dueAt: Int64?

    init(period: Int64) {
        self.period = period
    }

    /// Notes a change. - Returns: true when it should be sent now.
    mutating func changed(now: Int64) -> Bool {
        if dueAt != nil { return false }
        if let lastSentAt, now - lastSentAt < period {
            dueAt = lastSentAt + period
            return false
        }
        lastSentAt = now
        return true
    }

    /// On a tick. - Returns: true when the held change is due now.
    mutating func tick(now: Int64) -> Bool {
        guard let dueAt, now >= dueAt else { return false }
        self.dueAt = nil
        lastSentAt = now
        return true
    }
}
