/// Rate-limits what the server says about connections refused past its connection limit, so that a flood of
/// peers yields a few lines with counts instead of one line each. A pure value: the driver gives it the time.
///
/// The first refusal after a quiet spell of ``interval`` is reported at once; later ones are counted and
/// reported together once ``interval`` has passed since the last report (the driver arms a timer for
/// ``flushDeadline``, so a burst's count is never left unsaid).
struct RefusalLog {
    /// What to report.
    struct Report: Equatable {
        /// Refusals since the last report.
        var count: Int
        /// The peer refused last.
        var lastPeer: String
        /// The span the count covers, in whole seconds; nil for a refusal reported at once.
        var seconds: Int?
    }

    /// The least time between two reports.
    let interval: Duration
    private var lastReport: ContinuousClock.Instant?
    private var pending = 0
    private var pendingSince: ContinuousClock.Instant?
    private var lastPeer = ""

    init(interval: Duration = .seconds(5)) {
        self.interval = interval
    }

    /// When counted refusals are due to be reported; nil when none wait.
    var flushDeadline: ContinuousClock.Instant? {
        guard pending > 0, let lastReport else { return nil }
        return lastReport + interval
    }

    /// A peer was refused at `now`.
    /// - Returns: a report to log now, or nil when it is counted for a later one.
    mutating func refused(peer: String, at now: ContinuousClock.Instant) -> Report? {
        lastPeer = peer
        if let lastReport, now < lastReport + interval {
            if pending == 0 { pendingSince = now }
            pending += 1
            return nil
        }
        if pending > 0 {
            // Past the deadline with a count still waiting (the timer has not run yet): report them together.
            pending += 1
            return flush(at: now)
        }
        lastReport = now
        return Report(count: 1, lastPeer: peer, seconds: nil)
    }

    /// Reports the counted refusals if their time has come.
    mutating func flush(at now: ContinuousClock.Instant) -> Report? {
        guard pending > 0, let deadline = flushDeadline, now >= deadline else { return nil }
        let since = lastReport ?? pendingSince ?? now
        let report = Report(count: pending, lastPeer: lastPeer,
                            seconds: max(1, Int((since.duration(to: now) / .seconds(1)).rounded())))
        pending = 0
        pendingSince = nil
        lastReport = now
        return report
    }
}
