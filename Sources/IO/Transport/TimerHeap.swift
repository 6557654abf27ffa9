import Locking

/// The timers of an ``EventLoop``: a binary min-heap ordered by deadline, then by insertion order.
/// Cancelled entries stay in the heap until their deadline and are skipped then.
///
/// Deadlines are ``MonotonicClock`` nanoseconds (plain `Int64`): the loop checks them twice per turn, and with
/// `ContinuousClock.Instant` each check went through `Duration`'s 128-bit arithmetic, generic comparisons and copies
/// of the first entry (with a retain of its closure), ~4 % of a relay's samples at 4 x 1.
struct TimerHeap {
    private struct Entry {
        let deadline: Int64
        let sequence: UInt64
        let scheduled: Scheduled
        let work: () -> Void
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    /// The earliest deadline, or nil when no timer is pending.
    var nextDeadline: Int64? {
        entries.isEmpty ? nil : entries[0].deadline
    }

    mutating func insert(deadline: Int64, scheduled: Scheduled, work: @escaping () -> Void) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, scheduled: scheduled, work: work))
        nextSequence &+= 1
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the work of the earliest timer due at `now` that was not cancelled, if any.
    /// The caller runs it outside any access to the heap, so that the work may schedule more timers.
    mutating func popExpired(now: Int64) -> (() -> Void)? {
        while !entries.isEmpty && entries[0].deadline <= now {
            let first = removeFirst()
            if !first.scheduled.isCancelled { return first.work }
        }
        return nil
    }

    /// Whether the entry at `index` runs before the one at `other`.
    private func precedes(_ index: Int, _ other: Int) -> Bool {
        let left = entries[index].deadline
        let right = entries[other].deadline
        return left < right || (left == right && entries[index].sequence < entries[other].sequence)
    }

    private mutating func removeFirst() -> Entry {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return last }
        let first = entries[0]
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && precedes(left, smallest) { smallest = left }
            if right < entries.count && precedes(right, smallest) { smallest = right }
            if smallest == parent { return first }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// Timer deadlines on ``MonotonicClock``, the clock `epoll_wait`'s timeout counts in.
extension MonotonicClock {
    /// The deadline `delay` after `now`, saturating (a negative delay is due at once).
    static func deadline(after delay: Duration, from now: Int64 = nanoseconds) -> Int64 {
        let (seconds, attoseconds) = delay.components
        let whole = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if whole.overflow { return seconds < 0 ? now : .max }
        let offset = whole.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        if offset.overflow { return seconds < 0 ? now : .max }
        let deadline = now.addingReportingOverflow(max(0, offset.partialValue))
        return deadline.overflow ? .max : deadline.partialValue
    }

    /// `epoll_wait`'s timeout until `deadline`: whole milliseconds rounded up (never early), 0 when due, clamped to
    /// `Int32`.
    static func milliseconds(until deadline: Int64, from now: Int64) -> Int32 {
        guard deadline > now else { return 0 }
        let (difference, overflow) = deadline.subtractingReportingOverflow(now)
        if overflow { return .max }
        return Int32(clamping: difference / 1_000_000 + (difference % 1_000_000 == 0 ? 0 : 1))
    }
}
