/// How long to wait before each reconnect attempt: exponential backoff with jitter, so many broadcasters that lost
/// the same server do not come back in lockstep.
///
/// The defaults favour time on the air: a refused connect costs nothing, so the first retries come within a second
/// and the wait never exceeds 8 s (a server back from a restart is found within 8 s); 30 attempts keep trying for
/// about two to three and a half minutes before the broadcast gives up.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The wait before the first retry (before jitter).
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// Fraction of each wait that is random: 0 = none, 0.5 = the wait is 50–100 % of the exponential value.
    public var jitter: Double
    /// Attempts after which the output gives up (the broadcast then fails).
    public var maximumAttempts: Int

    /// Creates a backoff.
    /// - Parameters:
    ///   - initialDelay: first wait (default 0.5 s).
    ///   - maximumDelay: cap (default 8 s).
    ///   - jitter: random fraction, clamped to 0...1 (default 0.5).
    ///   - maximumAttempts: attempts before giving up (default 30).
    public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8),
                jitter: Double = 0.5, maximumAttempts: Int = 30) {
        self.initialDelay = initialDelay
        self.maximumDelay = max(maximumDelay, initialDelay)
        self.jitter = min(max(jitter, 0), 1)
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// The wait before attempt `attempt`.
    /// - Parameters:
    ///   - attempt: 1 for the first retry, 2 for the second, ...
    ///   - random: a uniformly random number in 0..<1 (injected so the function stays pure and testable).
    /// - Returns: `min(initialDelay × 2^(attempt−1), maximumDelay) × (1 − jitter × random)`.
    public func delay(attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt, 1) - 1, 30)
        var delay = initialDelay * (1 << exponent)
        if delay > maximumDelay || delay < initialDelay { delay = maximumDelay }
        let factor = 1 - jitter * min(max(random, 0), 1)
        return delay * factor
    }
}
