import Foundation
import LiveProtocol
import LiveShows
import SQLiteShowStore
import TestSupport
import Testing

@Suite(.startsPeers) struct SQLiteShowStoreTests {
    /// Bans and timeouts are kept by the user id's bytes: of two canonically equivalent ids, only the one named.
    @Test func bansAndTimeoutsAreKeptByTheBytesOfTheUserID() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        try ShowStoreContract.keepsUserIDsByTheirBytes(try SQLiteShowStore(directory: directory.path))
    }

    /// Whatever order and batching, the SQLite store answers every write as the reference ledger does, and loads
    /// the same records.
    @Test(arguments: [1, 7, 64])
    func behavesAsTheLedger(batchSize: Int) throws {
        let directory = try TemporaryDirectory("sqlite-store")
        let store = try SQLiteShowStore(directory: directory.path)
        try ShowStoreContract.behavesAsTheLedger(store, epoch: store.epoch, batchSize: batchSize)
    }

    /// Everything survives closing and opening again, except published tiles (no publisher outlives the process).
    @Test func reopeningKeepsEverythingButTiles() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        try ShowStoreContract.reopeningKeepsEverythingButTiles {
            let store = try SQLiteShowStore(directory: directory.path)
            return (store, store.epoch)
        }
    }

    /// The file is private, in WAL mode, at the current schema version, and readable by the sqlite3 program
    /// (an implementation we did not write).
    @Test func theDatabaseAsSQLiteItselfSeesIt() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        let store = try SQLiteShowStore(directory: directory.path + "/data")
        _ = try store.commit([("show:mugs", .message(MessageDraft(user: "bob", name: "Bob", role: .viewer,
                                                                   text: "it's \"here\"", time: 5)))])
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path + "/data")
        #expect((directoryMode[.posixPermissions] as? Int) == 0o700)
        let result = try Subprocess.run("sqlite3", [store.path, "PRAGMA journal_mode; PRAGMA user_version; "
                                                    + "SELECT show, id, user, text FROM messages;"])
        #expect(result.status == 0)
        #expect(result.stdout == "wal\n2\nshow:mugs|1|bob|it's \"here\"\n")
    }

    static func draft(_ text: String, at time: Int64) -> StoreWrite {
        ShowStoreContract.draft(text, at: time)
    }

    /// Old chat goes, oldest first and a bounded amount at a time; a pinned message and recent chat stay, and so
    /// do timeouts still running. sqlite3 (not our code) sees the result.
    @Test func pruningRemovesOldChatButThePinnedMessage() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        let store = try SQLiteShowStore(directory: directory.path)
        try ShowStoreContract.pruningRemovesOldChatButThePinnedMessage(store)
        let seen = try Subprocess.run("sqlite3", [store.path, "SELECT show, user FROM timeouts; "
                                                  + "SELECT name FROM sqlite_master WHERE type = 'index' "
                                                  + "AND tbl_name = 'messages'"])
        #expect(seen.stdout == "show:cups|zoë\nmessages_by_time\n", "\(seen.stdout)\(seen.stderr)")
    }

    /// A database made by the first schema (before old chat was pruned) is brought up to date when opened.
    @Test func aVersionOneDatabaseIsMigrated() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        let path = directory.file(SQLiteShowStore.fileName)
        let made = try Subprocess.run("sqlite3", [path, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) "
            + "WITHOUT ROWID; CREATE TABLE shows (name TEXT PRIMARY KEY, seq INTEGER NOT NULL DEFAULT 0, slow INTEGER "
            + "NOT NULL DEFAULT 0, pinned INTEGER, tiles INTEGER NOT NULL DEFAULT 0, ended INTEGER NOT NULL DEFAULT 0, "
            + "generation INTEGER NOT NULL DEFAULT 0, main TEXT, key_hash TEXT UNIQUE, key_nonce TEXT) WITHOUT ROWID; "
            + "CREATE TABLE messages (show TEXT NOT NULL, id INTEGER NOT NULL, user TEXT, name TEXT NOT NULL, role "
            + "TEXT NOT NULL, text TEXT NOT NULL, time INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, PRIMARY "
            + "KEY (show, id)) WITHOUT ROWID; CREATE TABLE bans (show TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY "
            + "(show, user)) WITHOUT ROWID; CREATE TABLE timeouts (show TEXT NOT NULL, user TEXT NOT NULL, until "
            + "INTEGER NOT NULL, PRIMARY KEY (show, user)) WITHOUT ROWID; INSERT INTO meta VALUES ('epoch', 'e1'); "
            + "INSERT INTO shows (name, seq) VALUES ('show:mugs', 1); INSERT INTO messages (show, id, user, name, "
            + "role, text, time) VALUES ('show:mugs', 1, 'bob', 'Bob', 'viewer', 'kept', 5); PRAGMA user_version = 1;"])
        #expect(made.status == 0, "\(made.stderr)")
        let store = try SQLiteShowStore(directory: directory.path)
        #expect(store.epoch == "e1")
        #expect(try store.load("show:mugs", historyLimit: 500, now: 0).history.map(\.text) == ["kept"])
        let seen = try Subprocess.run("sqlite3", [path, "PRAGMA user_version; SELECT name FROM sqlite_master "
                                                  + "WHERE type = 'index' AND tbl_name = 'messages'"])
        #expect(seen.stdout == "2\nmessages_by_time\n")
    }

    @Test func aDatabaseFromANewerStreamIsRefused() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        _ = try SQLiteShowStore(directory: directory.path)
        let path = directory.file(SQLiteShowStore.fileName)
        #expect(try Subprocess.run("sqlite3", [path, "PRAGMA user_version = 99"]).status == 0)
        #expect { try SQLiteShowStore(directory: directory.path) } throws: { error in
            "\(error)".contains("schema version 99, newer than this stream knows (2)")
        }
    }

    /// Issue 34 E: a second store on a directory in use is refused at once, naming the directory, and the
    /// directory is free again once the first is closed. (Before, both opened and the second's writes failed
    /// "database is locked".)
    @Test func aSecondStoreOnTheSameDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        do {
            let first = try SQLiteShowStore(directory: directory.path)
            #expect { try SQLiteShowStore(directory: directory.path) } throws: { error in
                (error as? StoreError)?.code == .inUse
                    && "\(error)".contains("another stream is using the data directory \(directory.path)")
            }
            _ = try first.commit([("show:mugs", Self.draft("still mine", at: 1))])
        }
        let second = try SQLiteShowStore(directory: directory.path)
        #expect(try second.load("show:mugs", historyLimit: 10, now: 0).history.map(\.text) == ["still mine"])
        let mode = try FileManager.default.attributesOfItem(atPath: directory.file(SQLiteShowStore.lockFileName))
        #expect((mode[.posixPermissions] as? Int) == 0o600)
    }

    /// Issue 34 F: a page damaged in the middle of the file is found when the store opens, and the error names the
    /// file (before, it showed only at the first write, as every send failing).
    @Test func aDamagedDatabaseIsRefusedWhenOpened() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        do {
            let store = try SQLiteShowStore(directory: directory.path)
            let padding = String(repeating: "x", count: 80)
            _ = try store.commit((1...400).map { ("show:mugs", Self.draft("message \($0) \(padding)", at: Int64($0))) })
        }
        let path = directory.file(SQLiteShowStore.fileName)
        let pages = try Subprocess.run("sqlite3", [path, "PRAGMA page_count; PRAGMA page_size"]).stdout
            .split(separator: "\n").compactMap { Int($0) }
        #expect(pages.count == 2 && pages[0] >= 6, "page count and size: \(pages)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        // A page in the middle, not the first (the header) nor the last.
        try handle.seek(toOffset: UInt64((pages[0] / 2) * pages[1]))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: pages[1]))
        try handle.close()
        #expect { try SQLiteShowStore(directory: directory.path) } throws: { error in
            (error as? StoreError)?.code == .damaged && "\(error)".contains("\(path) is damaged (SQLite's quick_check: ")
        }
    }

    @Test func anUnusableDirectoryIsAClearError() throws {
        let directory = try TemporaryDirectory("sqlite-store")
        let file = directory.file("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        #expect { try SQLiteShowStore(directory: file) } throws: { error in
            "\(error)".contains("cannot create the data directory \(file)")
        }
    }
}
