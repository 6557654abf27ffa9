import LiveProtocol
import LiveShows

/// A ``ShowStore`` in PostgreSQL, which several `stream serve` nodes can share: each show's chat sequence numbers
/// and message ids come from the database (the show's row is locked for the transaction), so a show has one order
/// whatever node wrote to it.
///
/// Batches are one transaction each, as in the SQLite store; a batch locks its shows' rows in one order (by the
/// names' bytes) before writing, so two nodes' batches never deadlock. Migrations run when the store opens, under
/// an advisory lock: two nodes starting at once migrate once. A server that is down, or does not answer within
/// `timeout`, is a ``StoreError`` (`unavailable`); the next call connects again.
///
/// Other nodes' facts do not arrive yet (no bus): ``factsFromElsewhere(_:)`` never calls its handler.
public final class PostgresShowStore: ShowStore {
    private let connection: PostgresConnection
    /// The store's epoch (made with the database).
    public let epoch: String
    /// Where the database is (its description has no secret).
    public var location: PostgresLocation { connection.location }

    /// Connects, migrates the schema and joins the nodes that use the database.
    /// - Parameters:
    ///   - location: the database.
    ///   - password: the role's password, or nil for libpq's own (`PGPASSWORD`, `PGPASSFILE`, none).
    ///   - timeout: the bound on connecting and on each statement's answer.
    /// - Throws: ``StoreError``: `unavailable` when the server cannot be reached or refuses the role, `damaged`
    ///   when the database is from a newer `stream`.
    public init(location: PostgresLocation, password: String? = nil, timeout: Duration = .seconds(10))
        throws(StoreError) {
        connection = PostgresConnection(location: location, password: password, timeout: timeout)
        try connection.open()
        epoch = try Self.migrate(connection)
        try Self.join(connection, first: true)
        connection.afterOpen = { connection throws(StoreError) in try Self.join(connection, first: false) }
    }

    deinit {
        // Session locks go when the server notices the connection closed, a moment after: a store opened right after
        // this one must find itself alone.
        if connection.isOpen { _ = try? connection.query("SELECT pg_advisory_unlock_all()") }
    }

    /// Runs the migrations this database lacks and reads (or makes) the epoch, in one transaction under the
    /// migration lock.
    private static func migrate(_ connection: PostgresConnection) throws(StoreError) -> String {
        try connection.transaction { () throws(StoreError) -> String in
            try connection.query("SELECT pg_advisory_xact_lock($1, $2)", String(PostgresSchema.lockClass),
                                 String(PostgresSchema.migrationLock))
            try connection.execute(PostgresSchema.bookkeeping)
            let version = Int(try connection.query("SELECT coalesce(max(version), 0) FROM stream_migrations")
                .first?.integer(0) ?? 0)
            guard version <= PostgresSchema.currentVersion else {
                throw StoreError(.damaged, "the database \(connection.location) has schema version \(version), "
                                 + "newer than this stream knows (\(PostgresSchema.currentVersion)): "
                                 + "use a newer stream")
            }
            for next in version..<PostgresSchema.currentVersion {
                try connection.execute(PostgresSchema.migrations[next])
                try connection.query("INSERT INTO stream_migrations (version) VALUES ($1)", String(next + 1))
            }
            var generator = SystemRandomNumberGenerator()
            try connection.query("INSERT INTO meta (key, value) VALUES ('epoch', $1) ON CONFLICT (key) DO NOTHING",
                                 String(generator.next() as UInt64, radix: 16))
            return try connection.query("SELECT value FROM meta WHERE key = 'epoch'").first?.text(0) ?? ""
        }
    }

    /// Takes the node lock (shared, for the session). The first node of a cluster to start — it finds the lock
    /// free for itself alone — marks every picture unpublished, as the SQLite store does at open: no publisher
    /// outlives the processes that accepted it. A node joining running ones leaves their pictures alone, and so
    /// does a node reconnecting after its connection broke (its own publishers are still connected).
    private static func join(_ connection: PostgresConnection, first: Bool) throws(StoreError) {
        let keys = (String(PostgresSchema.lockClass), String(PostgresSchema.nodeLock))
        if first, try connection.query("SELECT pg_try_advisory_lock($1, $2)", keys.0, keys.1).first?.bool(0) == true {
            try connection.execute("UPDATE shows SET tiles = 0 WHERE tiles != 0")
            try connection.query("SELECT pg_advisory_lock_shared($1, $2)", keys.0, keys.1)
            try connection.query("SELECT pg_advisory_unlock($1, $2)", keys.0, keys.1)
        } else {
            try connection.query("SELECT pg_advisory_lock_shared($1, $2)", keys.0, keys.1)
        }
    }

    // MARK: ShowStore

    /// Loads a show, from one snapshot of the database.
    public func load(_ name: String, historyLimit: Int, now: Int64) throws(StoreError) -> ShowRecord {
        // No show of that name can be stored (see ``holdsNUL(_:_:)``); passed on, libpq would end it at the NUL and
        // load another show.
        guard !name.utf8.contains(0) else { return ShowRecord(epoch: epoch) }
        return try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
            () throws(StoreError) -> ShowRecord in
            var record = ShowRecord(epoch: epoch)
            var pinnedID: Int64?
            if let show = try connection.query("""
                SELECT seq, slow, pinned, tiles, ended, generation, main, key_hash, key_nonce FROM shows WHERE name = $1
                """, name).first {
                record.seq = show.integer(0)
                record.slow = Int(show.integer(1))
                pinnedID = show.optionalInteger(2)
                record.media = MediaRecord(tiles: MediaRecord.tiles(fromBits: show.integer(3)), ended: show.bool(4),
                                           generation: show.integer(5),
                                           mainChoice: show.optionalText(6).flatMap(TileKind.init))
                if let hash = show.optionalText(7), let nonce = show.optionalText(8) {
                    record.ingestKey = IngestKeyRecord(hash: hash, nonce: nonce)
                }
            }
            record.history = try connection.query("""
                SELECT id, user_id, name, role, text, time FROM messages WHERE show = $1 AND NOT deleted
                ORDER BY id DESC LIMIT $2
                """, name, String(max(0, historyLimit))).reversed().map(Self.message)
            if let pinnedID { record.pinned = try message(name, pinnedID, includingDeleted: true) }
            for row in try connection.query("SELECT user_id FROM bans WHERE show = $1", name) {
                record.bans.insert(UserID(row.text(0)))
            }
            for row in try connection.query(
                "SELECT user_id, until_time FROM timeouts WHERE show = $1 AND until_time > $2", name, String(now)) {
                record.timeouts[UserID(row.text(0))] = row.integer(1)
            }
            return record
        }
    }

    /// Commits a batch in one transaction.
    public func commit(_ writes: [(show: String, write: StoreWrite)]) throws(StoreError)
        -> [Result<StoreFact, StoreError>] {
        try connection.transaction { () throws(StoreError) in
            try lockShows(writes)
            var results: [Result<StoreFact, StoreError>] = []
            results.reserveCapacity(writes.count)
            for (show, write) in writes {
                results.append(try apply(write, to: show))
            }
            return results
        }
    }

    /// Removes up to `limit` messages written before `time` (oldest first, not a show's pinned one) and the
    /// timeouts that ended before it, in one transaction.
    public func prune(before time: Int64, limit: Int) throws(StoreError) -> Int {
        try connection.transaction { () throws(StoreError) -> Int in
            let removed = try connection.query("""
                WITH doomed AS (
                    SELECT show, id FROM messages WHERE time < $1 AND NOT EXISTS
                        (SELECT 1 FROM shows WHERE shows.name = messages.show AND shows.pinned = messages.id)
                    ORDER BY time LIMIT $2),
                gone AS (
                    DELETE FROM messages USING doomed WHERE messages.show = doomed.show AND messages.id = doomed.id
                    RETURNING 1)
                SELECT count(*) FROM gone
                """, String(time), String(max(0, limit))).first?.integer(0) ?? 0
            try connection.query("DELETE FROM timeouts WHERE until_time < $1", String(time))
            return Int(removed)
        }
    }

    /// Every show that has an OBS key, by name (bytes order, as the SQLite store's).
    public func ingestKeyOwners() throws(StoreError) -> [IngestKeyOwner] {
        try connection.query("""
            SELECT name, key_hash, key_nonce, generation, ended FROM shows WHERE key_hash IS NOT NULL
            ORDER BY name COLLATE "C"
            """).map { row in
            IngestKeyOwner(show: row.text(0), key: IngestKeyRecord(hash: row.text(1), nonce: row.text(2)),
                           generation: row.integer(3), ended: row.bool(4))
        }
    }

    /// Not yet: facts of other nodes need the bus.
    public func factsFromElsewhere(_ handler: @escaping @Sendable (_ show: String, _ fact: StoreFact) -> Void) {}

    // MARK: Writes

    /// Whether a write changes a show's row (kicks and reactions are only passed on).
    private static func isStored(_ write: StoreWrite) -> Bool {
        switch write {
        case .kick, .reaction: false
        case .message, .deleteMessage, .clearChat, .pin, .slow, .ban, .unban, .timeout, .ingestKey, .tileStarted,
             .tileStopped, .end, .reopen, .setMain: true
        }
    }

    /// Makes the rows of the batch's shows and locks them, in the order of their names' bytes: every node locks in
    /// that order, so two batches wait for each other rather than deadlock. The lock is what orders a show's chat.
    private func lockShows(_ writes: [(show: String, write: StoreWrite)]) throws(StoreError) {
        let names = Set(writes.lazy.filter { Self.isStored($0.write) && !$0.show.utf8.contains(0) }.map(\.show))
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            try connection.query("INSERT INTO shows (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", name)
            try connection.query("SELECT 1 FROM shows WHERE name = $1 FOR UPDATE", name)
        }
    }

    /// One write inside the batch's transaction: a refusal (the message is gone) is a result, a database failure
    /// throws and rolls the whole batch back.
    private func apply(_ write: StoreWrite, to show: String) throws(StoreError) -> Result<StoreFact, StoreError> {
        if let fact = write.unstoredFact { return .success(fact) }
        // PostgreSQL's text cannot hold NUL: refused alone, rather than failing the others' writes with it.
        guard !Self.holdsNUL(show, write) else {
            return .failure(StoreError(.unavailable, "PostgreSQL cannot keep a NUL character (in a name or user id)"))
        }
        switch write {
        case .message(let draft):
            let message = draft.committed(id: try nextSeq(show))
            try connection.query("""
                INSERT INTO messages (show, id, user_id, name, role, text, time) VALUES ($1, $2, $3, $4, $5, $6, $7)
                """, show, String(message.id), message.user, message.name, message.role.rawValue, message.text,
                                 String(message.time))
            return .success(.message(message))
        case .deleteMessage(let id):
            guard try message(show, id, includingDeleted: false) != nil else {
                return .failure(StoreError(.notFound, "no message \(id)"))
            }
            let seq = try nextSeq(show)
            try connection.query("UPDATE messages SET deleted = true, text = '' WHERE show = $1 AND id = $2",
                                 show, String(id))
            try connection.query("UPDATE shows SET pinned = NULL WHERE name = $1 AND pinned = $2", show, String(id))
            return .success(.deleted(id: id, seq: seq))
        case .clearChat:
            let seq = try nextSeq(show)
            try connection.query("UPDATE messages SET deleted = true, text = '' WHERE show = $1 AND NOT deleted", show)
            try connection.query("UPDATE shows SET pinned = NULL WHERE name = $1", show)
            return .success(.cleared(seq: seq))
        case .pin(let id):
            var pinned: ChatMessage?
            if let id {
                guard let message = try message(show, id, includingDeleted: false) else {
                    return .failure(StoreError(.notFound, "no message \(id)"))
                }
                pinned = message
            }
            try connection.query("UPDATE shows SET pinned = $1 WHERE name = $2", id.map { String($0) }, show)
            return .success(.pinned(pinned))
        case .slow(let seconds):
            try connection.query("UPDATE shows SET slow = $1 WHERE name = $2", String(seconds), show)
            return .success(.slow(seconds))
        case .ban(let user):
            try connection.query("INSERT INTO bans (show, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", show, user)
            return .success(.banned(user: user))
        case .unban(let user):
            try connection.query("DELETE FROM bans WHERE show = $1 AND user_id = $2", show, user)
            return .success(.unbanned(user: user))
        case .timeout(let user, let until):
            try connection.query("""
                INSERT INTO timeouts (show, user_id, until_time) VALUES ($1, $2, $3)
                ON CONFLICT (show, user_id) DO UPDATE SET until_time = excluded.until_time
                """, show, user, String(until))
            return .success(.timedOut(user: user, until: until))
        case .ingestKey(let record):
            try connection.query("UPDATE shows SET key_hash = $1, key_nonce = $2 WHERE name = $3",
                                 record.hash, record.nonce, show)
            return .success(.ingestKey(record))
        case .tileStarted, .tileStopped, .end, .reopen, .setMain:
            return .success(.media(try applyMedia(write, to: show)))
        case .kick, .reaction:
            preconditionFailure("handled above")
        }
    }

    /// Media follows ``MediaRecord/applying(_:)``, the one rule every store shares.
    private func applyMedia(_ write: StoreWrite, to show: String) throws(StoreError) -> MediaRecord {
        guard let row = try connection.query("SELECT tiles, ended, generation, main FROM shows WHERE name = $1",
                                             show).first else {
            throw StoreError(.notFound, "the show \(show) has no row")
        }
        let current = MediaRecord(tiles: MediaRecord.tiles(fromBits: row.integer(0)), ended: row.bool(1),
                                  generation: row.integer(2), mainChoice: row.optionalText(3).flatMap(TileKind.init))
        guard let next = current.applying(write) else { return current }
        try connection.query("UPDATE shows SET tiles = $1, ended = $2, generation = $3, main = $4 WHERE name = $5",
                             String(MediaRecord.bits(of: next.tiles)), next.ended ? "true" : "false",
                             String(next.generation), next.mainChoice?.rawValue, show)
        return next
    }

    private func nextSeq(_ show: String) throws(StoreError) -> Int64 {
        guard let row = try connection.query("UPDATE shows SET seq = seq + 1 WHERE name = $1 RETURNING seq", show)
            .first else {
            throw StoreError(.notFound, "the show \(show) has no row")
        }
        return row.integer(0)
    }

    private func message(_ show: String, _ id: Int64, includingDeleted: Bool) throws(StoreError) -> ChatMessage? {
        guard let row = try connection.query("""
            SELECT id, user_id, name, role, text, time, deleted FROM messages WHERE show = $1 AND id = $2
            """, show, String(id)).first, includingDeleted || !row.bool(6) else { return nil }
        return Self.message(row)
    }

    private static func message(_ row: PostgresRow) -> ChatMessage {
        ChatMessage(id: row.integer(0), user: row.optionalText(1), name: row.text(2),
                    role: Role(rawValue: row.text(3)) ?? .viewer, text: row.text(4), time: row.integer(5))
    }

    /// Whether the write's show name or any of its texts holds a NUL.
    private static func holdsNUL(_ show: String, _ write: StoreWrite) -> Bool {
        let texts: [String?] = switch write {
        case .message(let draft): [draft.user, draft.name, draft.text]
        case .ban(let user), .unban(let user), .timeout(let user, _), .kick(let user): [user]
        case .ingestKey(let record): [record.hash, record.nonce]
        case .deleteMessage, .clearChat, .pin, .slow, .reaction, .tileStarted, .tileStopped, .end, .reopen, .setMain:
            []
        }
        return ([show] + texts).contains { $0?.utf8.contains(0) == true }
    }
}
