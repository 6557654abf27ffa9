import StreamCore
import Testing

/// Exponential backoff with jitter.
struct ReconnectBackoffTests {
    @Test(arguments: [
        (1, 0.0, Duration.seconds(1)),
        (2, 0.0, Duration.seconds(2)),
        (3, 0.0, Duration.seconds(4)),
        (5, 0.0, Duration.seconds(16)),
        (6, 0.0, Duration.seconds(30)),
        (40, 0.0, Duration.seconds(30)),
        (3, 1.0, Duration.seconds(2)),
        (3, 0.5, Duration.seconds(3)),
    ])
    func delayDoublesUpToTheCapMinusJitter(attempt: Int, random: Double, expected: Duration) {
        let backoff = ReconnectBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(30), jitter: 0.5)
        #expect(backoff.delay(attempt: attempt, random: random) == expected)
    }

    @Test func withoutJitterTheRandomNumberDoesNotMatter() {
        let backoff = ReconnectBackoff(initialDelay: .milliseconds(250), jitter: 0)
        #expect(backoff.delay(attempt: 2, random: 0.9) == .milliseconds(500))
    }

    @Test func outOfRangeInputsAreClamped() {
        let backoff = ReconnectBackoff(initialDelay: .seconds(2), maximumDelay: .seconds(1), jitter: 7,
                                       maximumAttempts: 0)
        #expect(backoff.maximumDelay == .seconds(2))
        #expect(backoff.jitter == 1)
        #expect(backoff.maximumAttempts == 1)
        #expect(backoff.delay(attempt: 0, random: -3) == .seconds(2))
    }
}

/// The default schedule: quick first retries, waits capped so a restarted server is found soon, minutes of trying.
struct ReconnectBackoffDefaultsTests {
    @Test func theDefaultScheduleRetriesQuicklyAndKeepsTryingForMinutes() {
        let backoff = ReconnectBackoff()
        #expect(backoff.delay(attempt: 1, random: 0) == .milliseconds(500))
        #expect(backoff.delay(attempt: 5, random: 0) == .seconds(8))
        #expect(backoff.delay(attempt: 30, random: 0) == .seconds(8))
        let slowest = (1...backoff.maximumAttempts).reduce(Duration.zero) { $0 + backoff.delay(attempt: $1, random: 0) }
        let fastest = (1...backoff.maximumAttempts).reduce(Duration.zero) {
            $0 + backoff.delay(attempt: $1, random: 0.999_999)
        }
        // 0.5 + 1 + 2 + 4 + 26 × 8 = 215.5 s at most; jitter halves each wait at worst.
        #expect(slowest == .milliseconds(215_500))
        #expect(fastest > .seconds(100))
    }
}
