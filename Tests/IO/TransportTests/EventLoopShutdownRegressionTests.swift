import Testing
@testable import Transport

/// Found by `scripts/sanitize.sh address` (LeakSanitizer): a loop shut down with timers still pending kept them,
/// and their closures kept the connections that kept the loop, so all of it leaked as a cycle.
struct EventLoopShutdownRegressionTests {
    /// Something a pending timer holds on to.
    final class Token: Sendable {}

    @Test func shutdownReleasesWhatPendingTimersHold() throws {
        let loop = try EventLoop(name: "shutdown-test")
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            // Far in the future: still pending when the loop shuts down.
            _ = loop.schedule(after: .seconds(3600)) { _ = token }
        }
        loop.shutdown()
        #expect(weakToken == nil)
    }
}
