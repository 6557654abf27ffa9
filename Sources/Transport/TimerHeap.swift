/// The timers of an ``EventLoop``: a binary min-heap ordered by deadline, then by insertion order.
/// Cancelled entries stay in the heap until their deadline and are skipped then.
struct TimerHeap {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let sequence: UInt64
        let scheduled: Scheduled
        let work: () -> Void

        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    /// The earliest deadline, or nil when no timer is pending.
    var nextDeadline: ContinuousClock.Instant? {
        entries.first?.deadline
    }

    mutating func insert(deadline: ContinuousClock.Instant, scheduled: Scheduled, work: @escaping () -> Void) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, scheduled: scheduled, work: work))
        nextSequence &+= 1
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the work of the earliest timer due at `now` that was not cancelled, if any.
    /// The caller runs it outside any access to the heap, so that the work may schedule more timers.
    mutating func popExpired(now: ContinuousClock.Instant) -> (() -> Void)? {
        while let first = entries.first, first.deadline <= now {
            removeFirst()
            if !first.scheduled.isCancelled { return first.work }
        }
        return nil
    }

    private mutating func removeFirst() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count && entries[right].precedes(entries[smallest]) { smallest = right }
            if smallest == parent { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
