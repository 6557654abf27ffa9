/// When a webhook that failed (a non-2xx answer, or no answer) is tried again.
///
/// The first retry comes 1 s after the first failure and each wait doubles up to ``longestWait``; after
/// ``attempts`` attempts, about 10 minutes after the first, the event is given up (and logged): a backend down longer
/// than that reads what it missed from the API instead.
enum WebhookBackoff {
    /// Attempts in all, the first included.
    static let attempts = 12
    /// The longest wait between two attempts.
    static let longestWait: Duration = .seconds(120)

    /// The wait before the next attempt, after `failures` failed attempts (1 or more); nil once the event is given up.
    static func delay(afterFailures failures: Int) -> Duration? {
        guard failures >= 1, failures < attempts else { return nil }
        let seconds = 1 << min(failures - 1, 20)
        return min(.seconds(seconds), longestWait)
    }

    /// The time from the first attempt to the last, when every attempt fails.
    static var totalWait: Duration {
        (1..<attempts).reduce(Duration.zero) { $0 + (delay(afterFailures: $1) ?? .zero) }
    }
}
