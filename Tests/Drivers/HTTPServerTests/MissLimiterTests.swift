import HTTPServer
import Testing

/// The per-client bucket of misses that slows address guessing (issue 34 D), on a clock the test moves.
struct MissLimiterTests {
    @Test func aClientWaitsOnceItsBurstIsSpentAndIsAnsweredAgainAsItRefills() {
        let limiter = MissLimiter(burst: 3, perSecond: 2)
        let start = ContinuousClock.now
        for _ in 0..<3 {
            #expect(limiter.retryAfter("198.51.100.7", now: start) == nil)
            limiter.missed("198.51.100.7", now: start)
        }
        #expect(limiter.retryAfter("198.51.100.7", now: start) == 1)
        #expect(limiter.retryAfter("198.51.100.8", now: start) == nil, "another client is not slowed")
        #expect(limiter.retryAfter("198.51.100.7", now: start + .milliseconds(400)) == 1)
        #expect(limiter.retryAfter("198.51.100.7", now: start + .milliseconds(500)) == nil, "half a second: one back")
        limiter.missed("198.51.100.7", now: start + .milliseconds(500))
        #expect(limiter.retryAfter("198.51.100.7", now: start + .milliseconds(500)) == 1)
    }

    @Test func clientsAreKeptWithinTheBoundFullBucketsFirst() {
        let limiter = MissLimiter(burst: 2, perSecond: 1, maximumClients: 4)
        let start = ContinuousClock.now
        limiter.missed("10.0.0.1", now: start)
        limiter.missed("10.0.0.1", now: start)
        for index in 2...9 { limiter.missed("10.0.0.\(index)", now: start + .seconds(index)) }
        #expect(limiter.clientCount <= 4)
        // The newest are kept; the first (long refilled) is forgotten and starts again with a full bucket.
        #expect(limiter.retryAfter("10.0.0.1", now: start + .seconds(9)) == nil)
        limiter.missed("10.0.0.9", now: start + .seconds(9))
        #expect(limiter.retryAfter("10.0.0.9", now: start + .seconds(9)) == 1)
    }

    @Test(arguments: [("203.0.113.7:51234", "203.0.113.7"), ("[::1]:51234", "::1"), ("[2001:db8::5]:80", "2001:db8::5"),
                      ("unix", "unix")])
    func aClientIsItsAddressWithoutThePort(remote: String, client: String) {
        #expect(MissLimiter.client(of: remote) == client)
    }
}
