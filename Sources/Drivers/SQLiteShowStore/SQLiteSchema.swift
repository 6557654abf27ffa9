/// The database's schema, as numbered migrations: `PRAGMA user_version` says how many have run. A new version
/// appends a migration; a database from a newer `stream` (a version above the last here) is refused rather than
/// misread.
enum SQLiteSchema {
    /// Each migration's statements, version 1 first.
    static let migrations: [String] = [
        // 1: shows, messages, bans, timeouts; the store's epoch.
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE shows (
            name TEXT PRIMARY KEY,
            seq INTEGER NOT NULL DEFAULT 0,
            slow INTEGER NOT NULL DEFAULT 0,
            pinned INTEGER,
            tiles INTEGER NOT NULL DEFAULT 0,
            ended INTEGER NOT NULL DEFAULT 0,
            generation INTEGER NOT NULL DEFAULT 0,
            main TEXT,
            key_hash TEXT UNIQUE,
            key_nonce TEXT
        ) WITHOUT ROWID;
        CREATE TABLE messages (
            show TEXT NOT NULL,
            id INTEGER NOT NULL,
            user TEXT,
            name TEXT NOT NULL,
            role TEXT NOT NULL,
            text TEXT NOT NULL,
            time INTEGER NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (show, id)
        ) WITHOUT ROWID;
        CREATE TABLE bans (show TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY (show, user)) WITHOUT ROWID;
        CREATE TABLE timeouts (
            show TEXT NOT NULL, user TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (show, user)
        ) WITHOUT ROWID;
        """,
        // 2: old chat is pruned by time.
        """
        CREATE INDEX messages_by_time ON messages (time);
        """,
    ]

    /// The version a database has once every migration ran.
    static var currentVersion: Int { migrations.count }
}
