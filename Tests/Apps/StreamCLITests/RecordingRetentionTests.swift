import Testing
@testable import StreamCLI

@Suite struct RecordingRetentionTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_765_000_000_000

    static func file(_ path: String, _ folder: String, daysAgo: Double) -> RecordingRetention.File {
        RecordingRetention.File(path: path, folder: folder, modified: now - Int64(daysAgo * Double(day)))
    }

    static let files = [
        file("/r/a.flv", "/r", daysAgo: 9), file("/r/b.flv", "/r", daysAgo: 2), file("/r/c.mp4", "/r", daysAgo: 1),
        file("/r/replays/s/1.mp4", "/r/replays/s", daysAgo: 0.6), file("/r/replays/s/2.mp4", "/r/replays/s", daysAgo: 0.4),
        file("/r/replays/s/3.mp4", "/r/replays/s", daysAgo: 0.2),
    ]

    @Test func deletesWhatIsOlderThanTheDaysAndPastTheNewestNOfEachFolder() {
        let policy = RecordingRetention(keepDays: 7, keepCount: 2)
        let expired = policy.expired(Self.files, inUse: [], now: Self.now)
        #expect(expired.map(\.file.path) == ["/r/a.flv", "/r/replays/s/1.mp4"])
        #expect(expired.map(\.reason) == ["older than 7 days", "past the newest 2 of its folder"])
    }

    @Test func fractionsOfADayCount() {
        let policy = RecordingRetention(keepDays: 0.5, keepCount: nil)
        #expect(policy.expired(Self.files, inUse: [], now: Self.now).map(\.file.path)
                    == ["/r/a.flv", "/r/b.flv", "/r/c.mp4", "/r/replays/s/1.mp4"])
        #expect(policy.expired(Self.files, inUse: [], now: Self.now).first?.reason == "older than 0.5 days")
    }

    /// A file being written is neither deleted nor counted among the newest.
    @Test func aRecordingBeingWrittenIsNeverDeletedNorCounted() {
        let policy = RecordingRetention(keepDays: 1.5, keepCount: 1)
        let expired = policy.expired(Self.files, inUse: ["/r/a.flv", "/r/replays/s/3.mp4"], now: Self.now)
        #expect(expired.map(\.file.path) == ["/r/b.flv", "/r/replays/s/1.mp4"])
    }

    @Test func withoutLimitsNothingGoes() {
        #expect(!RecordingRetention().isActive)
        #expect(RecordingRetention().expired(Self.files, inUse: [], now: Self.now).isEmpty)
    }
}
