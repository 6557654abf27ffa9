import Foundation
import Testing

/// The test tiers: everything (the default, and what CI runs), or `STREAM_TEST_TIER=fast`, which
/// `scripts/test.sh --fast` sets: only the tests that start no real peer and no process.
public enum TestTier {
    /// Whether this run is the fast tier.
    public static var isFast: Bool { ProcessInfo.processInfo.environment["STREAM_TEST_TIER"] == "fast" }
}

extension Trait where Self == ConditionTrait {
    /// Marks a suite that starts real peers or processes (nginx, ffmpeg, Chromium, Python, openssl, sqlite3, the
    /// `stream` binary, ...) or runs a broadcast in real time: `scripts/test.sh --fast` leaves it out; every other
    /// run, CI's included, runs it.
    public static var startsPeers: Self {
        .enabled(if: !TestTier.isFast, "starts real peers: left out of scripts/test.sh --fast")
    }
}
