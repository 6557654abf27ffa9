import LiveProtocol
import Metrics

/// What the show server counted since it started and holds now, for `GET /metrics` (docs/operations.md).
///
/// The counters are kept on the shows' loop as plain integers (the loop owns them: no lock, no atomic on the paths
/// that chat and fan out) and copied out by one hop when a scrape asks; the store's commit latency is kept by the
/// store's thread under a lock taken once per transaction.
public struct ShowMetrics: Sendable, Equatable {
    /// One live show's audience.
    public struct LiveShow: Sendable, Equatable {
        /// The stream name (declared by the operator's pattern; only live shows are listed, see ``perShowLimit``).
        public var name: String
        /// WebSocket sessions joined to it.
        public var sessions: Int
        /// Distinct people watching (the count in its welcome and status).
        public var viewers: Int

        /// Creates a show's line.
        public init(name: String, sessions: Int, viewers: Int) {
            self.name = name
            self.sessions = sessions
            self.viewers = viewers
        }
    }

    /// The most shows listed one by one: a pattern's instances are named by users, so per-show series are kept
    /// to live shows and, past this many, to those with the most sessions (the totals count every show).
    public static let perShowLimit = 100

    /// Live shows with the most sessions first, at most ``perShowLimit``.
    public var liveShows: [LiveShow] = []
    /// Every show live now.
    public var liveShowCount = 0
    /// WebSocket sessions open on the protocol (joined or not).
    public var sessions = 0
    /// Chat messages the store committed and the show sent to its audience.
    public var chatMessages = 0
    /// Messages handed to sessions: each broadcast counts once per member, each reply or event to one once.
    public var deliveries = 0
    /// Requests refused, by the protocol's error code (joins included).
    public var refusals: [ErrorCode: Int] = [:]
    /// Sessions dropped for sending more than ``ShowHub/malformedLimit`` malformed messages.
    public var malformedDrops = 0
    /// How long the store took to commit each transaction of writes (seconds).
    public var storeCommits = ShowMetrics.emptyCommitHistogram

    /// Commits of SQLite in WAL mode with full synchronous commits take about a millisecond on a quiet disk and tens
    /// on a busy one; the bounds reach 2.5 s, where a client would see its message hang.
    public static let emptyCommitHistogram = Histogram(bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                                0.25, 0.5, 1, 2.5])

    /// Creates empty metrics.
    public init() {}
}

/// The counters the hub keeps on its loop.
struct ShowCounters {
    var chatMessages = 0
    var deliveries = 0
    var refusals: [ErrorCode: Int] = [:]
    var malformedDrops = 0

    /// A message handed to `count` sessions: a refusal counts by its code.
    mutating func sent(_ message: ServerMessage, to count: Int = 1) {
        deliveries += count
        if case .reply(_, .failure(let error)) = message { refusals[error.code, default: 0] += 1 }
    }

    /// A message broadcast to a show's audience: a chat message is broadcast once, when its commit is known.
    mutating func broadcast(_ message: ServerMessage, to count: Int) {
        if case .event(.message) = message { chatMessages += 1 }
        sent(message, to: count)
    }
}
