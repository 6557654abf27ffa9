import Testing
import TestSupport

/// Every test that runs a real-time broadcast, one at a time: they pace frames on the wall clock, and running them
/// side by side on a small machine would make each one skip frames (by design) and fail its timing checks.
@Suite(.serialized, .startsPeers) enum LiveBroadcastTests {}
