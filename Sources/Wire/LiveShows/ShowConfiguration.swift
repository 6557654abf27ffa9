/// The limits and keys every show of a server shares.
public struct ShowConfiguration: Sendable {
    /// The RTMP(S) ingest URL grants and OBS keys publish to, e.g. "rtmp://127.0.0.1:1935/live"; nil when the
    /// server has no ingest (going live is then `unavailable`).
    public var ingestURL: String?
    /// OBS keys and publish grants.
    public var credentials: IngestCredentials
    /// How long a publish grant can start a publish, in milliseconds.
    public var grantLifetime: Int64 = 60_000
    /// Messages kept and sent on join.
    public var historyLimit = 500
    /// Requests per session: a burst, then a steady rate.
    var requestRate = TokenBucket.Rate(capacity: 20, perSecond: 10)
    /// Reactions per sender (a user, or a visitor's session).
    var reactionRate = TokenBucket.Rate(capacity: 10, perSecond: 4)
    /// The viewer count goes out at most once per this many milliseconds.
    public var viewersPeriod: Int64 = 1000
    /// Reactions go out at most once per this many milliseconds, counted by kind.
    public var reactionsPeriod: Int64 = 250

    /// Creates a configuration.
    public init(ingestURL: String?, credentials: IngestCredentials) {
        self.ingestURL = ingestURL
        self.credentials = credentials
    }

    /// Sets the request rate per session (a burst of `burst`, then `perSecond`).
    public mutating func setRequestRate(burst: Int, perSecond: Double) {
        requestRate = TokenBucket.Rate(capacity: Double(burst), perSecond: perSecond)
    }

    /// Sets the reaction rate per sender (a burst of `burst`, then `perSecond`).
    public mutating func setReactionRate(burst: Int, perSecond: Double) {
        reactionRate = TokenBucket.Rate(capacity: Double(burst), perSecond: perSecond)
    }
}
