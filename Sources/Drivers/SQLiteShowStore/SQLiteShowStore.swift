import CSQLite
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import LiveProtocol
import LiveShows

/// The default ``ShowStore``: one SQLite database (`shows.sqlite3`) in the data directory, in WAL mode with full
/// synchronous commits, so a commit that returned survives a crash (SIGKILL or power loss).
///
/// Batches are one transaction each: a driver that hands over every write waiting gets group commit for free.
/// Opening the store marks every picture unpublished (no publisher outlives the process that accepted it).
public final class SQLiteShowStore: ShowStore {
    /// The database file's name in the data directory.
    public static let fileName = "shows.sqlite3"

    private let database: SQLiteDatabase
    /// Held while the store is open: one `stream` per data directory.
    private let lock: DirectoryLock
    /// The store's epoch (made with the database).
    public let epoch: String
    /// The database file.
    public let path: String

    /// Opens or creates the store in a directory (created with mode 0700; the file is 0600).
    /// - Parameter directory: the data directory.
    /// - Throws: ``StoreError`` when the directory or database cannot be made, another `stream` uses the directory,
    ///   the database is damaged, or it is from a newer `stream`.
    public init(directory: String) throws(StoreError) {
        let prefix = directory.isEmpty || directory.hasSuffix("/") ? directory : directory + "/"
        path = prefix + Self.fileName
        try Self.makeDirectory(directory)
        // Two servers on one directory would each keep their own bans and counts in memory, and the second's writes
        // would fail "database is locked": the second is refused at once instead.
        lock = try DirectoryLock(path: prefix + Self.lockFileName, directory: directory)
        // Created 0600 before SQLite opens it: chat and moderation are nobody else's business. The WAL and
        // shared-memory files take the database file's mode.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.unavailable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout = 5000")
        try Self.checkIntegrity(database, path: path)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = FULL")
        try Self.migrate(database, path: path)
        epoch = try Self.epoch(database)
        try database.execute("UPDATE shows SET tiles = 0 WHERE tiles != 0")
    }

    /// The lock file's name in the data directory (empty; `flock`ed while a store is open).
    public static let lockFileName = "stream.lock"

    /// Creates the directory and its missing parents (0700), saying in words what stopped it.
    private static func makeDirectory(_ directory: String) throws(StoreError) {
        var built = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) == 0 || errno == EEXIST { continue }
            throw StoreError(.unavailable,
                             "cannot create the data directory \(directory): \(String(cString: strerror(errno))) "
                             + "(at \(built))")
        }
        var status = stat()
        guard stat(directory.isEmpty ? "." : directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(.unavailable,
                             "cannot create the data directory \(directory): a file of that name is in the way")
        }
        guard access(directory.isEmpty ? "." : directory, W_OK | X_OK) == 0 else {
            throw StoreError(.unavailable,
                             "the data directory \(directory) is not writable: \(String(cString: strerror(errno)))")
        }
    }

    /// SQLite's quick check, at start: a damaged page would otherwise show only at the first write, as every send
    /// failing `unavailable`.
    private static func checkIntegrity(_ database: SQLiteDatabase, path: String) throws(StoreError) {
        var problems: [String] = []
        do {
            let check = try database.statement("PRAGMA quick_check(5)")
            while try check.step() { problems.append(check.text(0)) }
            check.reset()
        } catch {
            problems = [error.reason]
        }
        guard problems != ["ok"] else { return }
        throw StoreError(.damaged,
                         "\(path) is damaged (SQLite's quick_check: \(problems.joined(separator: "; ").prefix(300))): "
                         + "restore it from a backup, or move it away to start with no chat and moderation")
    }

    private static func migrate(_ database: SQLiteDatabase, path: String) throws(StoreError) {
        let statement = try database.statement("PRAGMA user_version")
        _ = try statement.step()
        let version = Int(statement.integer(0))
        statement.reset()
        guard version <= SQLiteSchema.currentVersion else {
            throw StoreError(.damaged, "\(path) has schema version \(version), newer than this stream knows "
                             + "(\(SQLiteSchema.currentVersion)): use a newer stream")
        }
        for next in version..<SQLiteSchema.currentVersion {
            try database.transaction { () throws(StoreError) in
                try database.execute(SQLiteSchema.migrations[next])
                try database.execute("PRAGMA user_version = \(next + 1)")
            }
        }
    }

    private static func epoch(_ database: SQLiteDatabase) throws(StoreError) -> String {
        let select = try database.statement("SELECT value FROM meta WHERE key = 'epoch'")
        if try select.step() { return select.text(0) }
        var generator = SystemRandomNumberGenerator()
        let epoch = String(generator.next() as UInt64, radix: 16)
        try database.statement("INSERT INTO meta (key, value) VALUES ('epoch', ?)").bind(.text(epoch)).run()
        return epoch
    }

    // MARK: ShowStore

    /// Loads a show.
    public func load(_ name: String, historyLimit: Int, now: Int64) throws(StoreError) -> ShowRecord {
        var record = ShowRecord(epoch: epoch)
        let show = try database.statement(
            "SELECT seq, slow, pinned, tiles, ended, generation, main, key_hash, key_nonce FROM shows WHERE name = ?")
            .bind(.text(name))
        var pinnedID: Int64?
        if try show.step() {
            record.seq = show.integer(0)
            record.slow = Int(show.integer(1))
            pinnedID = show.optionalInteger(2)
            record.media = MediaRecord(tiles: MediaRecord.tiles(fromBits: show.integer(3)), ended: show.integer(4) != 0,
                                       generation: show.integer(5),
                                       mainChoice: show.optionalText(6).flatMap(TileKind.init))
            if let hash = show.optionalText(7), let nonce = show.optionalText(8) {
                record.ingestKey = IngestKeyRecord(hash: hash, nonce: nonce)
            }
        }
        show.reset()
        let history = try database.statement("""
            SELECT id, user, name, role, text, time FROM messages WHERE show = ? AND deleted = 0
            ORDER BY id DESC LIMIT ?
            """).bind(.text(name), .int(historyLimit))
        while try history.step() { record.history.append(Self.message(history)) }
        record.history.reverse()
        if let pinnedID { record.pinned = try message(name, pinnedID, includingDeleted: true) }
        let bans = try database.statement("SELECT user FROM bans WHERE show = ?").bind(.text(name))
        while try bans.step() { record.bans.insert(UserID(bans.text(0))) }
        let timeouts = try database.statement("SELECT user, until FROM timeouts WHERE show = ? AND until > ?")
            .bind(.text(name), .integer(now))
        while try timeouts.step() { record.timeouts[UserID(timeouts.text(0))] = timeouts.integer(1) }
        return record
    }

    /// Commits a batch in one transaction.
    public func commit(_ writes: [(show: String, write: StoreWrite)]) throws(StoreError)
        -> [Result<StoreFact, StoreError>] {
        try database.transaction { () throws(StoreError) in
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
        try database.transaction { () throws(StoreError) -> Int in
            try database.statement("""
                DELETE FROM messages WHERE (show, id) IN (
                    SELECT show, id FROM messages WHERE time < ? AND NOT EXISTS
                        (SELECT 1 FROM shows WHERE shows.name = messages.show AND shows.pinned = messages.id)
                    ORDER BY time LIMIT ?)
                """).bind(.integer(time), .int(limit)).run()
            let removed = database.changes
            try database.statement("DELETE FROM timeouts WHERE until < ?").bind(.integer(time)).run()
            return removed
        }
    }

    /// Every show that has an OBS key.
    public func ingestKeyOwners() throws(StoreError) -> [IngestKeyOwner] {
        let select = try database.statement("""
            SELECT name, key_hash, key_nonce, generation, ended FROM shows WHERE key_hash IS NOT NULL ORDER BY name
            """)
        var owners: [IngestKeyOwner] = []
        while try select.step() {
            owners.append(IngestKeyOwner(show: select.text(0),
                                         key: IngestKeyRecord(hash: select.text(1), nonce: select.text(2)),
                                         generation: select.integer(3), ended: select.integer(4) != 0))
        }
        return owners
    }

    /// A single-node store: no other node commits.
    public func factsFromElsewhere(_ handler: @escaping @Sendable (_ show: String, _ fact: StoreFact) -> Void) {}

    // MARK: Writes

    /// One write inside the batch's transaction: a refusal (the message is gone) is a result, an SQLite failure
    /// throws and rolls the whole batch back.
    private func apply(_ write: StoreWrite, to show: String) throws(StoreError) -> Result<StoreFact, StoreError> {
        if let fact = write.unstoredFact { return .success(fact) }
        try database.statement("INSERT OR IGNORE INTO shows (name) VALUES (?)").bind(.text(show)).run()
        switch write {
        case .message(let draft):
            let message = draft.committed(id: try nextSeq(show))
            try database.statement("""
                INSERT INTO messages (show, id, user, name, role, text, time) VALUES (?, ?, ?, ?, ?, ?, ?)
                """).bind(.text(show), .integer(message.id), message.user.map(SQLiteValue.text), .text(message.name),
                          .text(message.role.rawValue), .text(message.text), .integer(message.time)).run()
            return .success(.message(message))
        case .deleteMessage(let id):
            guard try message(show, id, includingDeleted: false) != nil else {
                return .failure(StoreError(.notFound, "no message \(id)"))
            }
            let seq = try nextSeq(show)
            try database.statement("UPDATE messages SET deleted = 1, text = '' WHERE show = ? AND id = ?")
                .bind(.text(show), .integer(id)).run()
            try database.statement("UPDATE shows SET pinned = NULL WHERE name = ? AND pinned = ?")
                .bind(.text(show), .integer(id)).run()
            return .success(.deleted(id: id, seq: seq))
        case .clearChat:
            let seq = try nextSeq(show)
            try database.statement("UPDATE messages SET deleted = 1, text = '' WHERE show = ? AND deleted = 0")
                .bind(.text(show)).run()
            try database.statement("UPDATE shows SET pinned = NULL WHERE name = ?").bind(.text(show)).run()
            return .success(.cleared(seq: seq))
        case .pin(let id):
            var pinned: ChatMessage?
            if let id {
                guard let message = try message(show, id, includingDeleted: false) else {
                    return .failure(StoreError(.notFound, "no message \(id)"))
                }
                pinned = message
            }
            try database.statement("UPDATE shows SET pinned = ? WHERE name = ?")
                .bind(id.map(SQLiteValue.integer), .text(show)).run()
            return .success(.pinned(pinned))
        case .slow(let seconds):
            try database.statement("UPDATE shows SET slow = ? WHERE name = ?").bind(.int(seconds), .text(show)).run()
            return .success(.slow(seconds))
        case .ban(let user):
            try database.statement("INSERT OR IGNORE INTO bans (show, user) VALUES (?, ?)")
                .bind(.text(show), .text(user)).run()
            return .success(.banned(user: user))
        case .unban(let user):
            try database.statement("DELETE FROM bans WHERE show = ? AND user = ?").bind(.text(show), .text(user)).run()
            return .success(.unbanned(user: user))
        case .timeout(let user, let until):
            try database.statement("INSERT OR REPLACE INTO timeouts (show, user, until) VALUES (?, ?, ?)")
                .bind(.text(show), .text(user), .integer(until)).run()
            return .success(.timedOut(user: user, until: until))
        case .ingestKey(let record):
            try database.statement("UPDATE shows SET key_hash = ?, key_nonce = ? WHERE name = ?")
                .bind(.text(record.hash), .text(record.nonce), .text(show)).run()
            return .success(.ingestKey(record))
        case .tileStarted, .tileStopped, .end, .reopen, .setMain:
            return .success(.media(try applyMedia(write, to: show)))
        case .kick, .reaction:
            preconditionFailure("handled above")
        }
    }

    /// Media follows ``MediaRecord/applying(_:)``, the one rule every store shares.
    private func applyMedia(_ write: StoreWrite, to show: String) throws(StoreError) -> MediaRecord {
        let select = try database.statement("SELECT tiles, ended, generation, main FROM shows WHERE name = ?")
            .bind(.text(show))
        guard try select.step() else { throw StoreError(.notFound, "the show \(show) has no row") }
        let current = MediaRecord(tiles: MediaRecord.tiles(fromBits: select.integer(0)), ended: select.integer(1) != 0,
                                  generation: select.integer(2),
                                  mainChoice: select.optionalText(3).flatMap(TileKind.init))
        select.reset()
        guard let next = current.applying(write) else { return current }
        try database.statement("UPDATE shows SET tiles = ?, ended = ?, generation = ?, main = ? WHERE name = ?")
            .bind(.integer(MediaRecord.bits(of: next.tiles)), .int(next.ended ? 1 : 0), .integer(next.generation),
                  next.mainChoice.map { SQLiteValue.text($0.rawValue) }, .text(show)).run()
        return next
    }

    private func nextSeq(_ show: String) throws(StoreError) -> Int64 {
        let update = try database.statement("UPDATE shows SET seq = seq + 1 WHERE name = ? RETURNING seq")
            .bind(.text(show))
        guard try update.step() else { throw StoreError(.notFound, "the show \(show) has no row") }
        let seq = update.integer(0)
        update.reset()
        return seq
    }

    private func message(_ show: String, _ id: Int64, includingDeleted: Bool) throws(StoreError) -> ChatMessage? {
        let select = try database.statement("""
            SELECT id, user, name, role, text, time, deleted FROM messages WHERE show = ? AND id = ?
            """).bind(.text(show), .integer(id))
        guard try select.step(), includingDeleted || select.integer(6) == 0 else { return nil }
        let message = Self.message(select)
        select.reset()
        return message
    }

    private static func message(_ row: SQLiteStatement) -> ChatMessage {
        ChatMessage(id: row.integer(0), user: row.optionalText(1), name: row.text(2),
                    role: Role(rawValue: row.text(3)) ?? .viewer, text: row.text(4), time: row.integer(5))
    }
}


/// An exclusive `flock` on a file in the data directory, held until released: a second `stream` on the same
/// directory is refused with a clear message. The kernel drops the lock when the process dies, so a crash leaves no
/// stale lock.
private final class DirectoryLock {
    private let descriptor: Int32

    init(path: String, directory: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.unavailable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(descriptor)
            if error == EWOULDBLOCK {
                throw StoreError(.inUse,
                                 "another stream is using the data directory \(directory) (it holds \(path)): stop "
                                 + "it, or give this one another --data-dir")
            }
            throw StoreError(.unavailable, "cannot lock \(path): \(String(cString: strerror(error)))")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
