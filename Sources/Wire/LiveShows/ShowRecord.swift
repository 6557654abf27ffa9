import LiveProtocol

/// Everything a store keeps about one show, as loaded when the show is first needed.
public struct ShowRecord: Sendable, Hashable {
    /// The store's epoch: changes when the store is new or wiped, so old chat positions are not trusted.
    public var epoch: String
    /// The show's last chat sequence number.
    public var seq: Int64
    /// The last messages (not deleted), oldest first, at most the history size.
    public var history: [ChatMessage]
    /// The pinned message.
    public var pinned: ChatMessage?
    /// Slow mode in seconds.
    public var slow: Int
    /// Banned user ids.
    public var bans: Set<UserID>
    /// Timeouts that have not ended: user id → end (milliseconds since 1970).
    public var timeouts: [UserID: Int64]
    /// The OBS key, if one was made.
    public var ingestKey: IngestKeyRecord?
    /// The pictures. After a restart no publisher is connected, so a store opened fresh loads no tiles.
    public var media: MediaRecord

    /// Creates a record.
    public init(epoch: String, seq: Int64 = 0, history: [ChatMessage] = [], pinned: ChatMessage? = nil,
                slow: Int = 0, bans: Set<UserID> = [], timeouts: [UserID: Int64] = [:],
                ingestKey: IngestKeyRecord? = nil, media: MediaRecord = MediaRecord()) {
        self.epoch = epoch
        self.seq = seq
        self.history = history
        self.pinned = pinned
        self.slow = slow
        self.bans = bans
        self.timeouts = timeouts
        self.ingestKey = ingestKey
        self.media = media
    }
}

/// What the ingest needs to know of a show that has an OBS key, to decide a publish without loading the show.
public struct IngestKeyOwner: Sendable, Hashable {
    /// The stream name.
    public var show: String
    /// The key's record.
    public var key: IngestKeyRecord
    /// The show's generation.
    public var generation: Int64
    /// Whether the host ended the show.
    public var ended: Bool

    /// Creates an owner.
    public init(show: String, key: IngestKeyRecord, generation: Int64, ended: Bool) {
        self.show = show
        self.key = key
        self.generation = generation
        self.ended = ended
    }
}

/// Where shows keep what must survive a restart: chat, pins, slow mode, bans, timeouts, OBS key hashes, show
/// state. SQLite under `--data-dir` is the default; a store shared by several nodes (Postgres and a message bus)
/// implements the same calls, delivering other nodes' facts to ``ShowStore/factsFromElsewhere(_:)``'s handler.
///
/// Calls block (a driver runs them off its event loop). A store is used by one driver thread at a time.
public protocol ShowStore: AnyObject {
    /// Loads a show (an unknown name gives an empty record; nothing is written).
    /// - Parameters:
    ///   - name: the stream name.
    ///   - historyLimit: the most messages to load.
    ///   - now: milliseconds since 1970 (expired timeouts are left out).
    func load(_ name: String, historyLimit: Int, now: Int64) throws(StoreError) -> ShowRecord

    /// Commits writes of any shows, in order, atomically: every fact or, on failure, none.
    /// - Parameter writes: (stream name, write) pairs.
    /// - Returns: one result per write: the fact, or why that write was refused (e.g. pinning a message that does
    ///   not exist) while the others went through.
    /// - Throws: ``StoreError`` when the batch could not be committed at all.
    func commit(_ writes: [(show: String, write: StoreWrite)]) throws(StoreError) -> [Result<StoreFact, StoreError>]

    /// Every show that has an OBS key, for the ingest's key checks.
    func ingestKeyOwners() throws(StoreError) -> [IngestKeyOwner]

    /// Forgets old chat, a bounded amount at a time: removes up to `limit` messages written before `time`
    /// (milliseconds since 1970), never a show's pinned message, and the timeouts that ended before `time`. Shows
    /// already loaded keep their history in memory; a show loaded later no longer sees what was removed.
    /// - Returns: how many messages were removed (`limit` means there may be more).
    func prune(before time: Int64, limit: Int) throws(StoreError) -> Int

    /// Facts committed by other nodes, delivered to `handler` on a thread of the store's (never for a
    /// single-node store).
    func factsFromElsewhere(_ handler: @escaping @Sendable (_ show: String, _ fact: StoreFact) -> Void)
}
